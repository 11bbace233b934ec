// Local ESLint rules for Runplane. no-restricted-imports matches import text, so it cannot tell whether
// "../../x" stays inside the importing project; no-relative-escape resolves the path to find out. max-params
// gives constructors their own budget, which ESLint's rule of that name cannot.
import path from 'node:path';

const PROJECT_ROOT = /^(.*?[\\/](?:apps|libs)[\\/][^\\/]+)[\\/]/;

function projectRootOf(filename) {
  return PROJECT_ROOT.exec(filename)?.[1];
}

function sourceOf(node) {
  switch (node.type) {
    case 'ImportDeclaration':
    case 'ExportAllDeclaration':
    case 'ExportNamedDeclaration':
      return node.source;
    case 'ImportExpression':
      return node.source.type === 'Literal' ? node.source : undefined;
    case 'TSImportEqualsDeclaration':
      return node.moduleReference.type === 'TSExternalModuleReference' ? node.moduleReference.expression : undefined;
    default:
      return undefined;
  }
}

const noRelativeEscape = {
  meta: {
    type: 'problem',
    docs: { description: 'Relative imports must stay inside the importing app or lib.' },
    schema: [],
    messages: {
      escape: 'Relative import "{{source}}" leaves {{project}}; import another project as @runplane/<name>.',
    },
  },
  create(context) {
    const root = projectRootOf(context.filename);
    if (!root) return {};
    const check = (node) => {
      const source = sourceOf(node);
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.resolve(path.dirname(context.filename), source.value);
      if (target === root || target.startsWith(`${root}${path.sep}`)) return;
      context.report({
        node: source,
        messageId: 'escape',
        data: { source: source.value, project: path.relative(context.cwd, root) },
      });
    };
    return {
      ImportDeclaration: check,
      ExportAllDeclaration: check,
      ExportNamedDeclaration: check,
      ImportExpression: check,
      TSImportEqualsDeclaration: check,
    };
  },
};

/** Function-like nodes whose parameter lists the budget covers (the same set as typescript-eslint's max-params). */
const FUNCTION_NODES = [
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'TSDeclareFunction',
  'TSEmptyBodyFunctionExpression',
  'TSFunctionType',
];

/** A class constructor or a Nest provider's `useFactory`: its parameters are the dependencies Nest injects. */
function takesInjectedDependencies(node) {
  const parent = node.parent;
  if (parent?.type === 'MethodDefinition' || parent?.type === 'TSAbstractMethodDefinition') {
    return parent.kind === 'constructor';
  }
  return (
    parent?.type === 'Property' &&
    parent.value === node &&
    !parent.computed &&
    parent.key.type === 'Identifier' &&
    parent.key.name === 'useFactory'
  );
}

/** TypeScript's `this` parameter only types the receiver; callers never pass it. */
function countedParams(node) {
  return node.params.filter((param) => !(param.type === 'Identifier' && param.name === 'this')).length;
}

/**
 * Parameters per function, with Nest in mind: ESLint's max-params has one budget for everything, but a class
 * constructor's (or a provider factory's) parameters are its injected dependencies, whose budget is separate.
 */
const maxParams = {
  meta: {
    type: 'suggestion',
    docs: { description: 'At most `max` parameters per function, `injected` for constructors and useFactory.' },
    schema: [
      {
        type: 'object',
        properties: { max: { type: 'integer', minimum: 0 }, injected: { type: 'integer', minimum: 0 } },
        additionalProperties: false,
      },
    ],
    messages: {
      tooMany: 'This function has {{count}} parameters; the budget is {{max}}. Pass an options object instead.',
      tooManyInjected:
        'This {{what}} injects {{count}} dependencies; the budget is {{max}}. Split the class or group its collaborators.',
    },
  },
  create(context) {
    const { max = 4, injected = 5 } = context.options[0] ?? {};
    const check = (node) => {
      const count = countedParams(node);
      const injection = takesInjectedDependencies(node);
      const budget = injection ? injected : max;
      if (count <= budget) return;
      const what = node.parent?.type === 'Property' ? 'useFactory' : 'constructor';
      context.report({
        node: node.parent?.type === 'MethodDefinition' || node.parent?.type === 'Property' ? node.parent.key : node,
        messageId: injection ? 'tooManyInjected' : 'tooMany',
        data: { count, max: budget, what },
      });
    };
    return Object.fromEntries(FUNCTION_NODES.map((type) => [type, check]));
  },
};

/** The `runplane` ESLint plugin. */
export default {
  meta: { name: 'runplane' },
  rules: { 'no-relative-escape': noRelativeEscape, 'max-params': maxParams },
};
