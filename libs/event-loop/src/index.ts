export { atTurnEnd, turnEnd, type TurnEdge } from './turn';
