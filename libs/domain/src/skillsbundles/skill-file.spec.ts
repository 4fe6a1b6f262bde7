import { discoveredSkill, skillFrontmatter, withoutShadowed } from './skill-file';

describe('SKILL.md frontmatter', () => {
  it('given a file with frontmatter, when read, then its description is the frontmatter\'s and the body the whole file', () => {
    const text = '---\nname: triage\ndescription: Sort incoming alerts\n---\nLook at the alert first.\n';
    expect(discoveredSkill('triage', text, 'ref')).toEqual({ name: 'triage', description: 'Sort incoming alerts', body: text, sourceRef: 'ref' });
  });

  it('given CRLF line ends and a byte-order mark, when read, then the frontmatter still parses', () => {
    expect(skillFrontmatter('\ufeff---\r\ndescription: x\r\n---\r\nbody')).toEqual({ description: 'x' });
  });

  it('given no frontmatter, an unclosed one, a list or broken YAML, when read, then the description is empty', () => {
    for (const text of ['just text', '---\ndescription: never closed\n', '---\n- a\n- b\n---\n', '---\ndescription: [unclosed\n---\n']) {
      expect(discoveredSkill('s', text, '').description).toBe('');
    }
  });

  it('given a billion-laughs style file, when read, then alias expansion is refused rather than followed', () => {
    const lines = ['---', 'a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 60; i++) lines.push(`b${i}: &b${i} [*${i === 0 ? 'a' : `b${i - 1}`}, *${i === 0 ? 'a' : `b${i - 1}`}]`);
    lines.push('description: bomb', '---', '');
    expect(skillFrontmatter(lines.join('\n'))).toEqual({});
  });

  it('given a built-in skill of the same name, when merged, then the repository\'s is dropped', () => {
    expect(withoutShadowed([{ name: 'triage' }, { name: 'rollback' }], new Set(['triage']))).toEqual([{ name: 'rollback' }]);
  });
});
