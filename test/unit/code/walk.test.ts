/** The code-tree walk on real temporary trees: ignore files, vendored and generated output, binaries, links, packages. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type SkipReason, type WalkOptions, walkCodeTree } from '../../../src/core/code/walk/walk.js';
import { ServiceError } from '../../../src/errors.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** A temporary tree from `{relative path: content}`; a folder is made for each path's parents. */
function tree(files: Record<string, string | Buffer>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-walk-'));
  dirs.push(root);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return root;
}

/** The yielded paths and the skip reports of one walk. */
async function walk(root: string, options: WalkOptions = {}) {
  const skipped = new Map<string, SkipReason>();
  const paths: string[] = [];
  for await (const f of walkCodeTree(root, { ...options, onSkip: (p, r) => skipped.set(p, r) })) paths.push(f.path);
  return { paths, skipped };
}

describe('walkCodeTree', () => {
  it('yields code, docs and config by extension, relative with / and in name order, with size and mtime', async () => {
    const root = tree({
      'src/b.ts': 'export const b = 1;\n',
      'src/a.py': 'print(1)\n',
      'README.md': '# hi\n',
      'notes.txt': 'not README-like\n',
      'CHANGELOG.txt': 'v1\n',
      'config.yaml': 'a: 1\n',
      Dockerfile: 'FROM node:20\n',
      '.env': 'SECRET=1\n',
      'logo.svgz': 'x',
    });
    const files = [];
    for await (const f of walkCodeTree(root)) files.push(f);
    expect(files.map((f) => f.path)).toEqual([
      'CHANGELOG.txt',
      'Dockerfile',
      'README.md',
      'config.yaml',
      'src/a.py',
      'src/b.ts',
    ]);
    const b = files.find((f) => f.path === 'src/b.ts')!;
    expect(b.absolute).toBe(path.join(root, 'src', 'b.ts'));
    expect(b.size).toBe(20);
    expect(b.mtimeMs).toBe(fs.statSync(b.absolute).mtimeMs);
    const { skipped } = await walk(root);
    expect(skipped.get('notes.txt')).toBe('language');
    expect(skipped.get('.env')).toBe('language');
  });

  it('honours nested .gitignore files with negations, .git/info/exclude and .trawlignore', async () => {
    const root = tree({
      '.git/info/exclude': 'excluded.ts\n',
      '.gitignore': '*.json\n!package.json\nsecret/\n!secret/a.ts\n/rootonly.ts\nhidden.ts\n',
      '.trawlignore': 'notes.md\n!hidden.ts\n',
      'package.json': '{}',
      'data.json': '{}',
      'excluded.ts': '',
      'hidden.ts': '',
      'notes.md': '',
      'rootonly.ts': '',
      'secret/a.ts': '',
      'sub/.gitignore': '!settings.json\n',
      'sub/settings.json': '{}',
      'sub/other.json': '{}',
      'sub/rootonly.ts': '',
      'sub/notes.md': '',
      'sub/deeper/.gitignore': 'settings.json\n',
      'sub/deeper/settings.json': '{}',
    });
    const { paths, skipped } = await walk(root);
    expect(paths).toEqual(['hidden.ts', 'package.json', 'sub/rootonly.ts', 'sub/settings.json']);
    for (const p of ['data.json', 'excluded.ts', 'notes.md', 'rootonly.ts', 'secret', 'sub/notes.md'])
      expect(skipped.get(p)).toBe('ignored');
    expect(skipped.get('sub/deeper/settings.json')).toBe('ignored');
    expect(skipped.has('secret/a.ts')).toBe(false); // an ignored folder is never entered, as in git
  });

  it('walking a subfolder of a repository honours the rules above it, unless they ignore the subfolder', async () => {
    const root = tree({
      '.git/info/exclude': 'local.ts\n',
      '.gitignore': '*.gen.ts\nscratch/\n',
      'pkg/a.ts': '',
      'pkg/a.gen.ts': '',
      'pkg/local.ts': '',
      'scratch/try.ts': '',
    });
    expect((await walk(path.join(root, 'pkg'))).paths).toEqual(['a.ts']);
    expect((await walk(path.join(root, 'scratch'))).paths).toEqual(['try.ts']);
  });

  it('skips VCS, vendored and generated folders and lock files', async () => {
    const files: Record<string, string> = { 'src/main.rs': 'fn main() {}\n', '.hg/x.py': '', '.svn/x.py': '' };
    for (const d of ['node_modules/x', 'vendor', 'dist', 'build', 'target', '__pycache__', '.venv', 'src/coverage'])
      files[`${d}/f.js`] = '';
    for (const lock of ['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'Cargo.lock', 'go.sum', 'poetry.lock'])
      files[lock] = '{}';
    const { paths, skipped } = await walk(tree(files));
    expect(paths).toEqual(['src/main.rs']);
    for (const d of ['node_modules', 'vendor', 'dist', 'build', 'target', '__pycache__', '.venv', 'src/coverage'])
      expect(skipped.get(d)).toBe('vendored');
    expect(skipped.get('package-lock.json')).toBe('lockfile');
    expect(skipped.get('pnpm-lock.yaml')).toBe('lockfile');
    expect(skipped.get('go.sum')).toBe('lockfile');
    expect([...skipped.keys()].some((p) => p.startsWith('.hg') || p.startsWith('.svn'))).toBe(false);
  });

  it('skips minified and generated files; keeps long-lined prose and declarations, and small one-line JSON', async () => {
    const long = `var a=${'1+'.repeat(3000)}1;`;
    const { paths, skipped } = await walk(
      tree({
        'app.min.js': 'var a=1;',
        'bundle.js': long,
        'mapped.js': `${'x'.repeat(600)}\n//# sourceMappingURL=mapped.js.map\n`,
        'api.pb.go': '// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n',
        'schema.py': '# @generated by a tool\nX = 1\n',
        'types.ts': '/**\n * @generated\n */\nexport type T = 1;\n',
        'mentions.ts': `${'// line\n'.repeat(10)}// files marked @generated are skipped\n`,
        'README.md': `${'A long paragraph kept on one line. '.repeat(200)}\n`,
        'small.json': JSON.stringify({ a: 'x'.repeat(400) }),
        'index.d.ts': `export { ${Array.from({ length: 200 }, (_, i) => `a${i} as A${i}`).join(', ')} };\n`,
      }),
    );
    expect(paths).toEqual(['README.md', 'index.d.ts', 'mentions.ts', 'small.json']);
    expect(skipped.get('app.min.js')).toBe('minified');
    expect(skipped.get('bundle.js')).toBe('minified');
    expect(skipped.get('mapped.js')).toBe('minified');
    expect(skipped.get('api.pb.go')).toBe('generated');
    expect(skipped.get('schema.py')).toBe('generated');
    expect(skipped.get('types.ts')).toBe('generated');
  });

  it('skips binaries (NUL bytes, invalid UTF-8) and files over the size limit; keeps non-ASCII text', async () => {
    const noise = Buffer.from(Array.from({ length: 2000 }, (_, i) => 0x80 + ((i * 37) % 0x7f)));
    const root = tree({
      'nul.ts': Buffer.from('const a = 1;\0\0'),
      'noise.js': noise,
      'unicode.py': 'nom = "Crème brûlée 🍮 naïve"\n',
      'big.ts': 'x'.repeat(1024 * 1024 + 1),
      'medium.ts': '// x\n'.repeat(400),
    });
    const { paths, skipped } = await walk(root);
    expect(paths).toEqual(['medium.ts', 'unicode.py']);
    expect(skipped.get('nul.ts')).toBe('binary');
    expect(skipped.get('noise.js')).toBe('binary');
    expect(skipped.get('big.ts')).toBe('too-large');
    expect((await walk(root, { maxFileBytes: 1000 })).skipped.get('medium.ts')).toBe('too-large');
  });

  it('does not follow linked folders; a linked file inside the root is read once, one outside never', async () => {
    const outside = tree({ 'secret.ts': 'export const key = 1;\n' });
    const root = tree({ 'real.ts': 'export {};\n', 'sub/only-linked.ts': '', '.gitignore': 'sub/\n' });
    fs.symlinkSync('.', path.join(root, 'loop'));
    fs.symlinkSync('real.ts', path.join(root, 'alias.ts'));
    fs.symlinkSync('sub/only-linked.ts', path.join(root, 'via.ts'));
    fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'leak.ts'));
    const { paths, skipped } = await walk(root);
    expect(paths).toEqual(['real.ts', 'via.ts']);
    expect(skipped.get('loop')).toBe('symlink');
    expect(skipped.get('alias.ts')).toBe('duplicate');
    expect(skipped.get('leak.ts')).toBe('symlink');
  });

  it('with packages, yields per package only READMEs, docs, declarations, package.json and src or lib', async () => {
    const root = tree({
      '.gitignore': 'node_modules\n',
      'index.ts': '',
      'node_modules/.bin/tool.js': '',
      'node_modules/.package-lock.json': '{}',
      'node_modules/foo/README.md': '# foo',
      'node_modules/foo/CHANGELOG.md': '',
      'node_modules/foo/package.json': '{}',
      'node_modules/foo/index.js': '',
      'node_modules/foo/src/a.ts': '',
      'node_modules/foo/src/style.json': '{}',
      'node_modules/foo/lib/a.js': '',
      'node_modules/foo/dist/index.d.ts': '',
      'node_modules/foo/dist/index.js': '',
      'node_modules/foo/dist/foo.min.js': '',
      'node_modules/foo/docs/guide.md': '',
      'node_modules/foo/docs/api/deep.md': '',
      'node_modules/foo/docs/logo.png': '',
      'node_modules/foo/test/a.test.ts': '',
      'node_modules/foo/test/types.d.ts': '',
      'node_modules/foo/examples/demo.ts': '',
      'node_modules/foo/node_modules/bar/README.md': '',
      'node_modules/@scope/pkg/readme': '',
      'node_modules/@scope/pkg/lib/x.js': '',
      'node_modules/@scope/pkg/lib/x.min.js': '',
      'node_modules/.pnpm/linked@1.0.0/node_modules/linked/README.md': '',
    });
    fs.symlinkSync('.pnpm/linked@1.0.0/node_modules/linked', path.join(root, 'node_modules/linked'));
    expect((await walk(root)).paths).toEqual(['index.ts']);
    expect((await walk(root, { packages: true })).paths).toEqual([
      'index.ts',
      'node_modules/@scope/pkg/lib/x.js',
      'node_modules/@scope/pkg/readme',
      'node_modules/foo/README.md',
      'node_modules/foo/dist/index.d.ts',
      'node_modules/foo/docs/api/deep.md',
      'node_modules/foo/docs/guide.md',
      'node_modules/foo/package.json',
      'node_modules/foo/src/a.ts',
      'node_modules/linked/README.md',
    ]);
  });

  it('rejects a root that is not a directory and stops when its signal aborts', async () => {
    const root = tree({ 'a.ts': '' });
    const walkOf = (r: string, o?: WalkOptions) => walkCodeTree(r, o)[Symbol.asyncIterator]().next();
    await expect(walkOf(path.join(root, 'a.ts'))).rejects.toBeInstanceOf(ServiceError);
    await expect(walkOf(path.join(root, 'missing'))).rejects.toMatchObject({ tag: 'INVALID_REQUEST' });
    await expect(walkOf(root, { signal: AbortSignal.abort() })).rejects.toThrow(/abort/i);
  });
});
