import { runServiceMain } from '../shared/server';
import { makeNewsDeps, newsService } from './service';

runServiceMain(newsService, makeNewsDeps, (config) => config.http.ports.news);
