/**
 * MMLU's 57 subjects in the four categories of the benchmark's own grouping
 * (hendrycks/test `categories.py`: subject → subcategory → category), the
 * domains that leave-one-domain-out evaluation holds out in turn.
 */

export const MMLU_DOMAINS = ['stem', 'humanities', 'social-sciences', 'other'] as const;
export type MmluDomain = (typeof MMLU_DOMAINS)[number];

const SUBJECTS: Readonly<Record<MmluDomain, readonly string[]>> = {
  stem: [
    'abstract_algebra',
    'astronomy',
    'college_biology',
    'college_chemistry',
    'college_computer_science',
    'college_mathematics',
    'college_physics',
    'computer_security',
    'conceptual_physics',
    'electrical_engineering',
    'elementary_mathematics',
    'high_school_biology',
    'high_school_chemistry',
    'high_school_computer_science',
    'high_school_mathematics',
    'high_school_physics',
    'high_school_statistics',
    'machine_learning',
  ],
  humanities: [
    'formal_logic',
    'high_school_european_history',
    'high_school_us_history',
    'high_school_world_history',
    'international_law',
    'jurisprudence',
    'logical_fallacies',
    'moral_disputes',
    'moral_scenarios',
    'philosophy',
    'prehistory',
    'professional_law',
    'world_religions',
  ],
  'social-sciences': [
    'econometrics',
    'high_school_geography',
    'high_school_government_and_politics',
    'high_school_macroeconomics',
    'high_school_microeconomics',
    'high_school_psychology',
    'human_sexuality',
    'professional_psychology',
    'public_relations',
    'security_studies',
    'sociology',
    'us_foreign_policy',
  ],
  // MMLU's "other (business, health, misc.)".
  other: [
    'anatomy',
    'business_ethics',
    'clinical_knowledge',
    'college_medicine',
    'global_facts',
    'human_aging',
    'management',
    'marketing',
    'medical_genetics',
    'miscellaneous',
    'nutrition',
    'professional_accounting',
    'professional_medicine',
    'virology',
  ],
};

const DOMAIN_OF: ReadonlyMap<string, MmluDomain> = new Map(
  MMLU_DOMAINS.flatMap((domain) => SUBJECTS[domain].map((subject) => [subject, domain] as const)),
);

/** The subjects of one domain. */
export function mmluSubjects(domain: MmluDomain): readonly string[] {
  return SUBJECTS[domain];
}

/** The domain of an MMLU subject (`college_physics` → `stem`), or undefined for a subject MMLU does not have. */
export function mmluDomainOf(subject: string): MmluDomain | undefined {
  return DOMAIN_OF.get(subject);
}
