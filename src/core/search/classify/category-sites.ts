/**
 * Sites whose URLs say what a page is: profile and company directories, scholarly publishers, news
 * outlets, hosted blogs. Hosts match with their subdomains; a path pattern narrows a host when given.
 */

const words = (list: string) => list.trim().split(/\s+/);

/** Pages about one person: [host, path]. */
export const PROFILE_PAGES: [string, RegExp][] = [
  ['linkedin.com', /^\/in\/[^/]+/],
  ['orcid.org', /^\/\d{4}-\d{4}-\d{4}-\d{3}[\dx]/],
  ['about.me', /^\/[^/]+\/?$/],
  ['crunchbase.com', /^\/person\//],
  ['imdb.com', /^\/name\/nm\d+/],
  ['scholar.google.com', /^\/citations\?.*user=/],
];

/** Pages about one company in business directories: [host, path]. */
export const COMPANY_PAGES: [string, RegExp][] = [
  ['crunchbase.com', /^\/organization\//],
  ['linkedin.com', /^\/company\//],
  ['glassdoor.com', /^\/overview\//],
  ['zoominfo.com', /^\/c\//],
  ['pitchbook.com', /^\/profiles\/company\//],
  ['ycombinator.com', /^\/companies\/[^/]+/],
  ['wellfound.com', /^\/company\//],
  ['bloomberg.com', /^\/profile\/company\//],
  ['opencorporates.com', /^\/companies\//],
];

/** Scholarly publishers, preprint servers and indexes. */
export const SCHOLARLY_HOSTS = words(`
  arxiv.org doi.org biorxiv.org medrxiv.org pubmed.ncbi.nlm.nih.gov ncbi.nlm.nih.gov europepmc.org
  link.springer.com ieeexplore.ieee.org dl.acm.org jstor.org semanticscholar.org openreview.net aclanthology.org
  proceedings.neurips.cc papers.nips.cc proceedings.mlr.press onlinelibrary.wiley.com tandfonline.com
  journals.plos.org mdpi.com frontiersin.org researchgate.net papers.ssrn.com zenodo.org academic.oup.com
  pnas.org science.org cell.com thelancet.com jamanetwork.com nejm.org bmj.com hal.science sciencedirect.com
  nature.com openlibrary.org elifesciences.org peerj.com royalsocietypublishing.org iopscience.iop.org
  journals.aps.org pubs.acs.org`);

/** Where a scholarly host also serves other pages: the paths of its publications. */
export const SCHOLARLY_PATH: Record<string, RegExp> = {
  'arxiv.org': /^\/(?:abs|pdf|html)\//,
  'ncbi.nlm.nih.gov': /^\/pmc\/articles\//,
  'nature.com': /^\/articles\//,
  'sciencedirect.com': /^\/science\/article\//,
  'openlibrary.org': /^\/(?:works|books)\//,
  'researchgate.net': /^\/publication\//,
  'mdpi.com': /^\/\d{4}-\d{3}[\dx]\//,
  'frontiersin.org': /^\/(?:journals\/[^/]+\/)?articles\//,
};

/** News outlets (a supporting cue: their sites also hold other pages). */
export const NEWS_HOSTS = words(`
  reuters.com apnews.com afp.com bbc.co.uk bbc.com nytimes.com theguardian.com washingtonpost.com cnn.com ft.com
  wsj.com bloomberg.com aljazeera.com npr.org cnbc.com theverge.com techcrunch.com arstechnica.com wired.com
  axios.com politico.com economist.com latimes.com usatoday.com nbcnews.com cbsnews.com abcnews.go.com foxnews.com
  theregister.com zdnet.com engadget.com independent.co.uk telegraph.co.uk lemonde.fr spiegel.de elpais.com
  theatlantic.com time.com`);

/** Where a news host is mostly something else: the paths of its news. */
export const NEWS_PATH: Record<string, RegExp> = {
  'bbc.co.uk': /^\/news\//,
  'bbc.com': /^\/news\//,
  'bloomberg.com': /^\/news\//,
};

/** Hosted blogs: each subdomain is one person's (or a small group's) site. */
export const BLOG_PLATFORMS = words(`
  substack.com wordpress.com blogspot.com bearblog.dev micro.blog svbtle.com tumblr.com ghost.io hashnode.dev
  write.as neocities.org mataroa.blog prose.sh typepad.com livejournal.com`);

/** Static hosting for code projects: personal pages, but project documentation too. */
export const CODE_PAGES = words('github.io gitlab.io codeberg.page sourceforge.io');
