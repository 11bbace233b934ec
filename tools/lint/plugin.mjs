// Local ESLint rules for Runplane. no-restricted-imports matches import text, so it cannot tell whether
// "../../x" stays inside the importing project; this rule resolves the path to find out.
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

/** The `runplane` ESLint plugin. */
export default { meta: { name: 'runplane' }, rules: { 'no-relative-escape': noRelativeEscape } };
