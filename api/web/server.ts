import { runServiceMain } from '../shared/server';
import { makeWebDeps, webService } from './service';

runServiceMain(webService, makeWebDeps, (config) => config.web.port);
