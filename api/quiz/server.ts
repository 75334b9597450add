import { runServiceMain } from '../shared/server';
import { createQuizService, makeQuizDeps } from './service';

runServiceMain(createQuizService, (infra) => makeQuizDeps(infra), (config) => config.http.ports.quiz);
