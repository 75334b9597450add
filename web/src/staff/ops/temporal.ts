/** Links into the Temporal UI by business id: the model's own rules (models/ops/temporal-ui.rules.ts), pure. */
export { businessIdQuery, queryLiteral, workflowsLink } from '../../../../models/ops/temporal-ui.rules';
