import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../../src/core/contents/html/extract.js';
import { evidenceOf } from '../../../src/core/contents/page.js';
import { mainText } from '../../../src/core/contents/render.js';
import { classifyDocument } from '../../../src/core/search/classify/index.js';
import { brandLookalike, classifyModeration } from '../../../src/core/search/classify/moderation.js';

/** A page as pages.service stores it, then the moderation half of classifyDocument. */
function moderate(html: string, url: string) {
  const page = extractHtml(html, url);
  const doc = { url: page.url, title: page.title, text: mainText(page), metadata: { ...evidenceOf(page) } };
  const r = classifyDocument(doc);
  return { unsafe: r.unsafe, reasons: r.moderationReasons };
}

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body><main><h1>${title}</h1>${body}</main></body></html>`; // prettier-ignore
const paras = (...ps: string[]) => ps.map((p) => `<p>${p}</p>`).join('');

describe('moderation: unsafe pages', () => {
  it('flags adult top-level domains and the rating meta tag (adult, RTA label)', () => {
    expect(moderate(page('Welcome', paras('Enter if you are over 18.')), 'https://videos.example.xxx/').reasons).toEqual(['sexual: .xxx top-level domain']); // prettier-ignore
    const adult = moderate(page('Gallery', paras('Members area.'), '<meta name="rating" content="adult">'), 'https://gallery.example/'); // prettier-ignore
    expect(adult).toEqual({ unsafe: true, reasons: ['sexual: rating meta tag "adult"'] });
    const rta = moderate(page('Gallery', paras('Members area.'), '<meta name="RATING" content="RTA-5042-1996-1400-1577-RTA">'), 'https://gallery.example/'); // prettier-ignore
    expect(rta.unsafe).toBe(true);
  });

  it('flags a page full of explicit terms', () => {
    const r = moderate(page('Free Porn Videos', paras('Hardcore porn videos updated daily.', 'Live sex cams with cam girls, nude pics and xxx videos.')), 'https://tube.example/'); // prettier-ignore
    expect(r.unsafe).toBe(true);
    expect(r.reasons[0]).toMatch(/^sexual: lexicon score \d+/);
  });

  it('flags a shop selling drugs without prescription, and ghost-gun kits', () => {
    const drugs = paras('Buy cocaine online with discreet shipping worldwide.', 'Xanax without prescription, oxycodone for sale, order MDMA online today.'); // prettier-ignore
    expect(moderate(page('Pharma Direct', drugs), 'https://shop.example/').reasons).toEqual([expect.stringMatching(/^drugs-weapons: lexicon score/)]); // prettier-ignore
    const guns = paras('Ghost gun kits for sale. Untraceable pistols shipped to your door.', 'Auto sears in stock now.'); // prettier-ignore
    expect(moderate(page('Arms', guns), 'https://arms.example/').unsafe).toBe(true);
  });

  it('flags self-harm instructions', () => {
    const r = moderate(page('The painless way to die', paras('This guide lists the easiest ways to kill yourself and suicide methods ranked by how quick they are.')), 'https://forum.example/t/1'); // prettier-ignore
    expect(r.reasons).toEqual([expect.stringMatching(/^self-harm: /)]);
  });

  it('flags phishing: a brand look-alike host asking for a password, and account-suspension lures', () => {
    const login = page('Sign in', paras('Your account has been limited. Enter your password to continue.'));
    expect(moderate(login, 'https://paypal.com.account-verify.example/login').reasons).toContain('malware-phishing: paypal look-alike host asking for credentials'); // prettier-ignore
    const lure = page('Action required', paras('Your account has been suspended due to unusual sign-in activity.', 'Verify your account now: confirm your identity and update your payment information.')); // prettier-ignore
    expect(moderate(lure, 'https://mail-service.example/notice').unsafe).toBe(true);
  });

  it('flags cracked-software downloads and hate pages', () => {
    expect(moderate(page('Photoshop crack download', paras('Keygen and cracked version included. Download crack below.')), 'https://warez.example/ps').unsafe).toBe(true); // prettier-ignore
    expect(moderate(page('The truth', paras('Immigrants are vermin. Heil Hitler. White power forever.')), 'https://hate.example/').reasons).toEqual([expect.stringMatching(/^hate: /)]); // prettier-ignore
  });
});

describe('moderation: ordinary pages stay safe', () => {
  it('does not flag a medical article on overdose statistics', () => {
    const body = paras(
      'Drug overdose deaths in the United States rose to more than 107,000 in 2022, according to the CDC. Synthetic opioids, mostly illicitly manufactured fentanyl, were involved in about 70% of those deaths.', // prettier-ignore
      'Researchers found that naloxone distribution and medication for opioid use disorder reduced overdose mortality. Cocaine and methamphetamine were increasingly found in combination with fentanyl.', // prettier-ignore
      'Public health officials recommend expanding treatment, fentanyl test strips and harm-reduction services.',
    );
    expect(moderate(page('Overdose deaths: what the 2022 statistics show', body), 'https://health.example/overdose-statistics')).toEqual({ unsafe: false, reasons: [] }); // prettier-ignore
  });

  it('does not flag a malware analysis that quotes the lure', () => {
    const body = paras(
      'Our researchers analysed a new stealer sample delivered through phishing emails. The emails claimed "your account has been suspended" and asked victims to verify your account now.', // prettier-ignore
      'The payload was packed with a commercial crypter and exfiltrated browser credentials; the operators advertise ransomware-as-a-service on underground forums.', // prettier-ignore
      'We publish IOCs and YARA rules below, with detection guidance and mitigations for defenders.',
    );
    expect(moderate(page('Analysis of a new infostealer campaign', body), 'https://security.example/blog/stealer-analysis').unsafe).toBe(false); // prettier-ignore
  });

  it('does not flag a drug-bust report, a prevention page, sex education or a page about Al Gore', () => {
    const bust = paras('Police seized a darknet market where vendors listed cocaine for sale and offered discreet shipping. Prosecutors charged four people.'); // prettier-ignore
    expect(moderate(page('Darknet market shut down', bust), 'https://news.example/darknet').unsafe).toBe(false);
    const help = paras('If you are searching for how to kill yourself, please reach out. Call or text 988 to reach the Suicide and Crisis Lifeline.'); // prettier-ignore
    expect(moderate(page('How to kill yourself? Read this first', help), 'https://help.example/').unsafe).toBe(false);
    const sexEd = paras('Puberty changes the body. Sexual health includes consent, contraception and regular testing for sexually transmitted infections.'); // prettier-ignore
    expect(moderate(page('Sex education for teenagers', sexEd), 'https://school.example/sex-ed').unsafe).toBe(false);
    const gore = paras('Al Gore served as vice president and later campaigned on climate change. Gore won the Nobel Peace Prize in 2007.'); // prettier-ignore
    expect(moderate(page('Al Gore', gore), 'https://encyclopedia.example/al-gore').unsafe).toBe(false);
  });

  it('matches whole words only, and leaves real subdomains of other sites alone', () => {
    const methods = paras('Buy methods online: our course teaches statistical methods. Essex and Sussex campuses. Cocktail recipes.'); // prettier-ignore
    expect(moderate(page('Research methods', methods), 'https://courses.example/').unsafe).toBe(false);
    expect(brandLookalike('apple.stackexchange.com')).toBeUndefined();
    expect(brandLookalike('microsoft.github.io')).toBeUndefined();
    expect(brandLookalike('www.paypal.com')).toBeUndefined();
    expect(brandLookalike('secure-netflix-billing.example')).toBe('netflix');
    const r = classifyModeration({ url: 'https://apple.stackexchange.com/q/1', title: 'Log in to iCloud', text: 'Sign in with your password.', metadata: {} }); // prettier-ignore
    expect(r.unsafe).toBe(false);
  });

  it('ignores a numeric review rating that shares the meta key', () => {
    const html = page('Great anvil', paras('Sturdy and heavy.'), '<meta itemprop="rating" content="4.5"><meta name="rating" content="general">'); // prettier-ignore
    expect(moderate(html, 'https://reviews.example/anvil').unsafe).toBe(false);
  });
});
