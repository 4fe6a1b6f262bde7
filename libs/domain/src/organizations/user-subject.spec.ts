import { USER_SUBJECT_MAX, userSubjectProblem } from './user-subject';

describe('userSubjectProblem: the subjects that may become users/{sub}', () => {
  it.each(['alice', '00u1abcd2EFGH3ij4', 'auth0|5f2c', 'alice@example.com', 'a.b-c_d+e:f', 'Zoë', '李雷', 'x'.repeat(USER_SUBJECT_MAX)])(
    'accepts %p',
    (subject) => {
      expect(userSubjectProblem(subject)).toBeNull();
    },
  );

  it.each<[string, string]>([
    ['empty', ''],
    ['too long', 'x'.repeat(USER_SUBJECT_MAX + 1)],
    ['a zero-width space (format)', 'al\u200bice'],
    ['a zero-width joiner (format)', 'al\u200dice'],
    ['a right-to-left override (format)', 'ecila\u202e'],
    ['a byte-order mark (format)', '\ufeffalice'],
    ['a soft hyphen (format)', 'al\u00adice'],
    ['a NUL (control)', 'alice\u0000'],
    ['a newline (control)', 'alice\nbob'],
    ['DEL (control)', 'alice\u007f'],
    ['a C1 control', 'alice\u0085'],
    ['a space', 'alice smith'],
    ['a no-break space', 'alice\u00a0'],
    ['an ideographic space', 'alice\u3000'],
    ['a line separator', 'alice\u2028'],
    ['the wildcard', '*'],
    ['a wildcard inside', 'ali*'],
    ['a slash', 'alice/admin'],
    ['a lone surrogate', 'alice\ud800'],
    ['a private-use character', 'alice\ue000'],
    ['fullwidth letters (NFKC changes them)', 'ａｌｉｃｅ'],
    ['a ligature (NFKC changes it)', 'ﬁnance'],
    ['a decomposed accent (NFKC composes it)', 'Zoe\u0308'],
    ['a dot', '.'],
    ['two dots', '..'],
  ])('refuses %s', (_, subject) => {
    expect(userSubjectProblem(subject)).toEqual(expect.any(String));
  });
});
