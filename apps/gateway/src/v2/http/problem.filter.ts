import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from '@runplane/http';
import { answerWithProblem } from './problem';

/** Writes every error of a v2 route (guards, pipes and handlers alike) as RFC 9457 problem+json. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    answerWithProblem(error, { request: http.getRequest<FastifyRequest>(), reply: http.getResponse<FastifyReply>() });
  }
}
