import { type Connection, type Model, Schema } from 'mongoose';

export interface SmokeCheckDoc {
  _id: string;
  service: string;
  requestedBy: string;
  objectKey?: string;
  createdAt: Date;
}

const SmokeCheckSchema = new Schema<SmokeCheckDoc>(
  {
    _id: { type: String, required: true },
    service: { type: String, required: true },
    requestedBy: { type: String, required: true },
    objectKey: { type: String },
    createdAt: { type: Date, required: true, default: () => new Date() },
  },
  { collection: 'smoke_checks', versionKey: false },
);

export function smokeCheckModel(conn: Connection): Model<SmokeCheckDoc> {
  return (conn.models.SmokeCheck as Model<SmokeCheckDoc> | undefined) ?? conn.model<SmokeCheckDoc>('SmokeCheck', SmokeCheckSchema);
}
