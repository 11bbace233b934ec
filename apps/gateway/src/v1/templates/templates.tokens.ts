/** Injection token for the gateway's TemplatesService (exported by TemplatesModule for Pods and endpoints). */
export const TEMPLATES_SERVICE = Symbol('TEMPLATES_SERVICE');
