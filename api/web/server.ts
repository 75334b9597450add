import { runServiceMain } from '../shared/server';
import { createWebService, makeWebDeps } from './service';

runServiceMain(createWebService, makeWebDeps, (config) => config.web.port);
