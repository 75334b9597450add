import { runServiceMain } from '../shared/server';
import { makeQuizDeps, quizService } from './service';

runServiceMain(quizService, makeQuizDeps, (config) => config.http.ports.quiz);
