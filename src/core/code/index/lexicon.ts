/**
 * Words programmers use for the same thing: a query for "remove the empty entries of a dict" should
 * also find `delete`, `blank` and `dictionary`. General programming vocabulary, written by hand; each
 * group's words expand each other at a low weight (docs/code-context.md).
 */
import { analyze } from '../../search/analyzer.js';

const GROUPS = `
remove delete del drop strip erase discard
empty blank none null
check test verify validate whether
convert cast transform parse
print display show output echo log
read load open fetch retrieve
write save dump store persist
join concat concatenate merge combine append
split separate divide tokenize chunk
length len size count
sort order sorted
unique distinct dedup duplicate
random rand shuffle sample
date datetime day
time timestamp clock now current
uppercase upper capital capitalize
lowercase lower
whitespace space trim strip
list array arr seq sequence
dictionary dict map mapping hash
directory dir folder
file filename fname
string str text
integer int
float decimal double
boolean bool
average mean avg
maximum max largest biggest highest
minimum min smallest lowest
first head begin start
last tail end final
index idx position pos
value val
variable var
function func fn method callable
argument arg args param parameter kwargs
object obj instance
character char letter chars
replace substitute sub
find search locate lookup match grep
exists exist isfile isdir
create make new mkdir build generate
url link uri href
request http download
image img picture photo
config configuration settings conf cfg
environment env environ
error exception raise err
message msg
iterate loop iter iterable iterator each
reverse reversed backwards
number digit numeric num
square sqrt power pow
column col
row line
dataframe df pandas
plot chart graph figure matplotlib plt
thread threading concurrent
process subprocess proc
command cmd shell
execute run exec invoke
kill terminate stop exit quit
wait sleep delay pause
copy clone
element item elem entry
shape dimension dim
type isinstance kind
encode encoding utf decode unicode
byte bytes buffer
compare equal equals eq same
`;

/** Weight of a related word against the query's own words. */
export const RELATED_WEIGHT = 0.2;

function build(): Map<string, string[]> {
  const related = new Map<string, string[]>();
  for (const line of GROUPS.split('\n')) {
    const terms = [
      ...new Set(
        line
          .split(/\s+/)
          .filter(Boolean)
          .flatMap((w) => analyze(w).postings.map((p) => p.term)),
      ),
    ];
    for (const t of terms) related.set(t, [...new Set([...(related.get(t) ?? []), ...terms.filter((x) => x !== t)])]);
  }
  return related;
}

let table: Map<string, string[]> | undefined;

/** The index terms related to `term` (analyzed like documents), or none. */
export function relatedTerms(term: string): readonly string[] {
  table ??= build();
  return table.get(term) ?? [];
}
