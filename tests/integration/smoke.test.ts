/**
 * The smoke workflow: API → Temporal → worker (the separate process `npm test` started) →
 * activities → MongoDB and MinIO.
 */
import request from 'supertest';
import { supportService, makeSupportDeps } from '../../api/support/service';
import type { SupportDeps } from '../../api/support/deps';
import { smokeCheckModel } from '../../models/ops/smoke-check.model';
import { startTestService, tokenFor, type TestService } from '../helpers/service';

describe('POST /ops/smoke', () => {
  let svc: TestService<SupportDeps>;
  beforeAll(async () => {
    svc = await startTestService(supportService, makeSupportDeps);
  });
  afterAll(() => svc?.close());

  it('runs the workflow end to end and leaves a document in MongoDB and an object in MinIO', async () => {
    const token = await tokenFor('operator-1', ['platform.ops']);
    const res = await request(svc.callback).post('/ops/smoke').set('Authorization', `Bearer ${token}`).expect(200);
    const data = res.body.data;
    expect(data.verified).toBe(true);
    expect(data.workflowId).toBe(`smoke-${data.checkId}`);

    const doc = await smokeCheckModel(svc.deps.mongo.conn).findById(data.checkId).lean();
    expect(doc).toMatchObject({ service: 'support', requestedBy: 'operator-1', objectKey: data.minio.key });
    const stat = await svc.deps.storage.client.statObject(data.minio.bucket, data.minio.key);
    expect(stat.size).toBe(data.minio.bytes);

    const description = await svc.deps.temporal.client.workflow.getHandle(data.workflowId).describe();
    expect(description.status.name).toBe('COMPLETED');
    expect(description.taskQueue).toBe('platform-ops');
  });

  it('answers 401 without a token and 403 without the platform.ops permission', async () => {
    const none = await request(svc.callback).post('/ops/smoke').expect(401);
    expect(none.body).toEqual({ success: false, message: 'Missing bearer token: send Authorization: Bearer <token>', error: 'UNAUTHENTICATED' });
    const bad = await request(svc.callback).post('/ops/smoke').set('Authorization', 'Bearer not-a-jwt').expect(401);
    expect(bad.body.error).toBe('UNAUTHENTICATED');
    const token = await tokenFor('reader-1', ['ai.view']);
    const forbidden = await request(svc.callback).post('/ops/smoke').set('Authorization', `Bearer ${token}`).expect(403);
    expect(forbidden.body).toEqual({ success: false, message: 'Missing permission: platform.ops', error: 'FORBIDDEN' });
  });
});
