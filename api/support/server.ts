import { runServiceMain } from '../shared/server';
import { makeSupportDeps, supportService } from './service';

runServiceMain(supportService, makeSupportDeps, (config) => config.http.ports.support);
