// The licence of a mined package, named from what the package ships: a Debian package's copyright file
// (its machine-readable `License:` field, else the licence its free text grants) or an npm package's
// manifest. Used by the miner (mine.mjs) and by the licences table (licences.mjs), so one rule names them.
import fs from 'node:fs';

/** Licences recognised by their usual wording, for copyright files written before DEP-5. */
const WORDINGS = [
  [/PSF LICENSE AGREEMENT|Python Software Foundation License|\bthe Python license\b|^Python License$/im, 'PSF'],
  [/Permission is hereby granted, free of charge, to any person obtaining a copy/i, 'Expat'],
  [/Redistribution and use in source and binary forms/i, 'BSD'],
  [/Permission to use, copy, modify,? and distribute this software and its\s+(?:associated\s+)?documentation for any purpose/i, 'HPND'], // prettier-ignore
  [/Apache License,? Version 2\.0/i, 'Apache-2.0'],
  [/GNU Lesser General Public License/i, 'LGPL'],
  [/GNU General Public License/i, 'GPL'],
  [/Mozilla Public License/i, 'MPL'],
];

/** A licence's short name or SPDX expression (`GPL-2+`, `BSD-3-clause`, `(MIT AND Zlib)`), not the first line of its text. */
const SHORT_NAME = /^\(?[\w.+-]+(?:,?\s+(?:or|and|with)\s+[\w.+-]+)*\)?$/i;

/** Whether a recorded licence names one (a short name, not 'unknown' nor a sentence of the text). */
export const isLicenceName = (name) => typeof name === 'string' && name !== 'unknown' && SHORT_NAME.test(name);

/**
 * The licence a copyright text grants: the short name of the `Files: *` stanza's `License:` (else of the
 * first stanza that has one), else the licence its wording grants (that stanza's text first, then the whole file's), else 'unknown'.
 */
export function licenceOfCopyright(text) {
  const stanzas = text.split(/\n\s*\n/);
  const star = stanzas.find((s) => /^Files:\s*\*\s*$/m.test(s));
  const fields = (star ? [star] : stanzas).map((s) => /^License:[ \t]*(\S.*)$/m.exec(s)?.[1]?.trim());
  const named = fields.find(isLicenceName);
  if (named) return named;
  for (const part of star ? [star, text] : [text]) {
    for (const [wording, name] of WORDINGS) if (wording.test(part)) return name;
  }
  return 'unknown';
}

/** The licence of Debian package `pkg` and the file it was read from (null when the package ships none). */
export function debianLicence(pkg) {
  const file = `/usr/share/doc/${pkg}/copyright`;
  try {
    return { licence: licenceOfCopyright(fs.readFileSync(file, 'utf8')), file };
  } catch {
    return { licence: 'unknown', file: null };
  }
}

/** The licence of an npm package's manifest (`license`, or the older `license: {type}` / `licenses: [...]`). */
export function npmLicence(json) {
  if (typeof json.license === 'string') return json.license;
  if (json.license?.type) return json.license.type;
  if (Array.isArray(json.licenses)) return json.licenses.map((l) => l.type ?? l).join(' OR ') || 'unknown';
  return 'unknown';
}
