export {
  TemplatesRepository,
  type TemplateChanges,
  type TemplateRow,
  type TemplateVisibility,
} from './templates.repository';
export { TemplatesService, type RegistryAuthLookup } from './templates.service';
