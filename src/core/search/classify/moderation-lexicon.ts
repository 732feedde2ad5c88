/**
 * The moderation lexicon: one group per kind of unsafe page, each with its terms (regex sources matched
 * case-insensitively at word boundaries; a space matches any whitespace, `-` or `_`, so URL slugs match too), the
 * thresholds the group's score must pass, and counter-cues that say the page reports on the subject.
 */

export type ModerationGroupId = 'sexual' | 'violence' | 'hate' | 'self-harm' | 'drugs-weapons' | 'malware-phishing';

export interface LexiconGroup {
  id: ModerationGroupId;
  /** Terms that mark the group on their own (weight 1 per match). */
  strong: string[];
  /** Terms that also appear in ordinary writing about the subject (weight 0.5 per match). */
  weak: string[];
  /** The weighted score (title ×3, URL ×2, text ×1) the page must reach... */
  minScore: number;
  /** ...and the score per 1000 words of text (short texts count as 200 words). */
  minPerThousand: number;
  /** Reporting, research or help: when the text has one, both thresholds are tripled. */
  counter?: RegExp;
}

const DRUGS = `cocaine|crack cocaine|heroin|meth|methamphetamine|crystal meth|mdma|ecstasy pills|molly|lsd|fentanyl|carfentanil|oxycodone|oxycontin|xanax|alprazolam|adderall|percocet|ketamine|dmt|magic mushrooms|psilocybin mushrooms|mephedrone`; // prettier-ignore
const GUNS = `guns?|firearms?|pistols?|rifles?|handguns?|glocks?|ar-?15s?|ak-?47s?`;
const GROUPS_OF_PEOPLE = `jews|muslims|blacks|gays|immigrants|mexicans|arabs|asians|christians|women|whites|refugees`;

/** The groups, in the order their reasons are reported. */
export const LEXICON: readonly LexiconGroup[] = [
  {
    id: 'sexual',
    strong: [
      `(?:free |hd |hardcore |amateur |teen )?porn(?:o)? (?:videos?|movies?|clips|pics|site|tube|hub)`,
      `xxx (?:videos?|movies?|pics|sex|porn)`,
      `hardcore (?:porn|sex)`,
      `(?:live |free )?sex (?:videos?|tapes?|cams?|chat|movies?)`,
      `live sex`,
      `nude (?:pics|photos|videos?|selfies|leaks?)`,
      `naked (?:girls|women|teens|pics|photos)`,
      `cam(?: )?girls?`,
      `webcam sex`,
      `blow(?: )?jobs?|hand(?: )?jobs?|cum(?: )?shots?|cream(?: )?pies?|gang(?: )?bangs?|deep(?: )?throat(?:ing)?|pussy|pussies|milfs?|hentai`,
      `dick pics?`,
      `onlyfans (?:leaks?|nudes)`,
      `nsfw (?:videos?|pics|content)`,
      `escort (?:services?|agency|girls)`,
      `erotic (?:videos?|massage)`,
    ],
    weak: [`porn|porno|pornography|pornographic|xxx|nsfw|nudes?|naked|sexy|stripper|fetish|bdsm|orgasms?|horny`],
    minScore: 3,
    minPerThousand: 4,
  },
  {
    id: 'violence',
    strong: [
      `(?:real )?gore (?:videos?|pics|photos|site|footage)`,
      `real gore`,
      `(?:beheading|execution|decapitation|torture) (?:videos?|footage|clips?)`,
      `snuff (?:films?|videos?|movies?)`,
      `watch people die`,
      `shock (?:site|videos?)`,
      `dead (?:body|bodies) (?:pics|photos|videos?)`,
      `mutilat(?:ed|ion) (?:pics|photos|videos?)`,
      `graphic (?:death|accident|killing) (?:videos?|footage)`,
      `bestgore|liveleak`,
    ],
    weak: [`decapitated|dismembered|disembowel(?:l?ed)?|mutilated|gruesome|corpses?`],
    minScore: 3,
    minPerThousand: 4,
  },
  {
    id: 'hate',
    strong: [
      `niggers?|kikes?|wetbacks?|ragheads?|towelheads?|faggots?|sand niggers?`,
      `heil hitler|sieg heil|white power|race war now|white genocide|race traitors?|1488`,
      `(?:gas|kill|exterminate|deport) (?:all )?(?:the )?(?:${GROUPS_OF_PEOPLE})`,
      `death to (?:the )?(?:${GROUPS_OF_PEOPLE})`,
      `(?:${GROUPS_OF_PEOPLE}) are (?:vermin|parasites|subhuman|animals|cockroaches|rats|a disease|a plague)`,
      `subhuman (?:scum|filth|vermin)`,
    ],
    weak: [],
    minScore: 2,
    minPerThousand: 2,
    counter:
      /\b(?:hate speech|hate crimes?|condemn(?:s|ed)?|anti-defamation|extremism|extremists?|slurs?|antisemitism|racism|racist)\b/i,
  },
  {
    id: 'self-harm',
    strong: [
      `how to (?:kill yourself|commit suicide|end your (?:own )?life|hang yourself|slit your wrists|cut yourself|overdose on|starve yourself|hide (?:self(?: )harm|your cuts))`,
      `(?:best|easiest|quickest|fastest|painless|surest|most painless) (?:ways?|methods?) to (?:die|kill yourself|commit suicide|end (?:it|your life))`,
      `suicide (?:methods?|instructions|guide)`,
      `pro(?: )?ana|pro(?: )?mia|thinspo|thinspiration|meanspo`,
    ],
    weak: [],
    minScore: 2,
    minPerThousand: 1,
    counter:
      /\b(?:988|suicide (?:prevention|hotline|helpline|crisis)|crisis (?:line|text line)|samaritans|lifeline|get help|reach out|recovery|treatment|prevalence|statistics)\b/i,
  },
  {
    id: 'drugs-weapons',
    strong: [
      `(?:buy|order|purchase|shop for) (?:cheap |pure |real )?(?:${DRUGS}) (?:online|now|here|today|with bitcoin)`,
      `(?:${DRUGS}) (?:for sale|online shop|online store|without (?:a )?prescription|no prescription|shipped discreetly)`,
      `(?:discreet|stealth) (?:shipping|delivery|packaging)`,
      `no prescription (?:needed|required)`,
      `(?:buy|order) (?:${GUNS}) (?:online )?(?:without (?:a )?(?:background check|license|licence|ffl|paperwork))`,
      `(?:no background check|untraceable) (?:${GUNS})`,
      `ghost guns? (?:for sale|kits?)`,
      `(?:auto sears?|glock switch(?:es)?|full(?: )auto conversion kits?|bump stocks?) (?:for sale|in stock|kits?)`,
      `how to (?:make|build) (?:a )?(?:pipe )?bombs?`,
      `explosives for sale`,
    ],
    weak: [`darknet (?:market|vendor|shop)s?`],
    minScore: 2,
    minPerThousand: 1.5,
    counter:
      /\b(?:police|arrest(?:s|ed)?|seized|seizures?|indicted|charged with|prosecutors?|sentenced|overdose deaths?|public health|investigators?)\b/i,
  },
  {
    id: 'malware-phishing',
    strong: [
      `keygen|warez|(?:download )?(?:cracked|crack) (?:apk|software|version|download)|download crack|serial key generator`,
      `(?:free )?(?:robux|v-?bucks|vbucks|gems|coins) generator`,
      `(?:fud|undetectable) (?:crypter|rat|malware|payload|stealer)`,
      `(?:buy|rent|sell|selling|purchase) (?:our )?(?:ransomware|botnet|rat|stealer|exploit kit|malware|ddos)`,
      `ransomware(?: )as(?: )a(?: )service|ddos(?: )for(?: )hire|ip stresser|booter service`,
      `cvv shop|fullz|dumps with pin|carding (?:forum|shop|tutorial)`,
      `verify your (?:account|identity) (?:now|immediately|within|to avoid)`,
      `your account (?:has been|will be|is) (?:suspended|locked|disabled|limited|restricted)`,
      `confirm your (?:identity|billing|payment|password|card)`,
      `unusual (?:sign-?in|login) activity`,
      `enter your (?:password|card number|social security|ssn|pin|seed phrase|recovery phrase)`,
      `update your (?:payment|billing) (?:information|details)`,
    ],
    weak: [`crypter|stealer logs|phishing kit`],
    minScore: 2,
    minPerThousand: 1.5,
    counter:
      /\b(?:analysis|analy[sz]ed|researchers?|samples?|iocs?|indicators of compromise|threat intelligence|detections?|mitigations?|yara|mitre|cve-\d{4}|security advisory|beware|scam alert)\b/i,
  },
];

/** Top-level domains for adult content. */
export const ADULT_TLDS = ['xxx', 'porn', 'adult', 'sex'];
/** Words in a host name that name an adult site. */
export const ADULT_HOST = /porn|xxx|xvideos|xhamster|redtube|youporn|hentai|camgirl|onlyfans|chaturbate|brazzers/;
/** `rating` meta values that declare adult content (Google SafeSearch, RTA label, common variants). */
export const ADULT_RATINGS = ['adult', 'mature', 'rta-5042-1996-1400-1577-rta'];
/** Brands phishing pages imitate: a host using one as a name part, off the brand's own domain, is suspect. */
export const PHISHED_BRANDS = `paypal apple icloud microsoft office365 outlook netflix amazon chase wellsfargo bankofamerica coinbase binance metamask facebook instagram google gmail dhl fedex usps`.split(' '); // prettier-ignore
