//! The `gen` command: writes generated cases (ELF code objects, their
//! assembler text) and a manifest naming each case's expected verdict.
//!
//! Case `I` of seed `N` is built from the ChaCha20 key stream of the
//! project's one seed scheme ([`hsaco_gen::seed`], domain `gen`); the
//! generators see it only through
//! `arbitrary::Unstructured`, so a (seed, index) pair names a case on every
//! machine, for as long as the generators and the options stay the same.

use crate::coverage::Coverage;
use crate::manifest::{sha256_hex, ManifestEntry};
use clap::{Args, ValueEnum};
use hsaco_conform::files::write_atomic;
use hsaco_conform::{out, outln};
use hsaco_gen::arbitrary::{self, Unstructured};
use hsaco_gen::config::ConfigError;
use hsaco_gen::sgpr::{self, Enables, SuiteEntry};
use hsaco_gen::target::Family;
use hsaco_gen::{mutate, seed, Case, CaseKind, Config, Expect, Generator};
use hsaco_oracle::smem::SmemGen;
use hsaco_oracle::targets;
use serde::Serialize;
use std::fmt::Write as _;
use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The long help of `gen`: how cases are named and what is written.
pub const GEN_HELP: &str = "\
Kinds (--kinds, comma-separated):
  valid       a random valid code object (target, kernels, descriptors,
              metadata, initial register state) drawn under the knobs
  sgpr-suite  an entry of the exhaustive SGPR enable suite of a family of
              the --targets, drawn at random (V5, family representative)
  smem        a valid code object on a GFX8-or-later processor of the
              --targets whose every kernel runs a random stream of SMEM
              (scalar memory) instructions (smem_streams on, at least one
              instruction); valid cases hold such streams too, as the
              smem_* knobs say
  mutant      a valid case (of the other kinds' generators) changed so that
              it breaks exactly one rule; `expect` names that rule
Cases that are not mutants are split evenly among the other listed kinds.

Seeds: case I (0-based) of --seed N reads the ChaCha20 key stream whose
256-bit key is N as 8 little-endian bytes followed by 24 zero bytes, with
the 64-bit nonce (stream id) I and the block counter starting at 0 (the
original 64-bit-nonce ChaCha20; rand_chacha's ChaCha20Rng with set_stream(I)).
The generators read it through arbitrary::Unstructured over the first
4096 bytes, or 4x as many, up to 4 MiB, while a case exhausts them. The
case is a function of (N, I) and of the options (knobs, kinds, mutant
share), never of --count, the machine or the order of --kinds.
Every case in the project is named so, by (seed, domain, index): gen's
own cases are domain `gen` (key bytes 8..16 zero); `conform` names its
generated cases KIND.CPU.SEED.INDEX.hsaco, domain KIND.CPU (key bytes
8..16 the FNV-1a of the domain), and --case NAME writes any of them.
`replay` probes: probe.sgpr.CPU.INDEX is SGPR suite entry INDEX built for
CPU (no seed), probe.smem.CPU.SEED.INDEX an SMEM stream of domain
probe-smem.CPU; --case writes those too.

Output (DIR must be empty or new; --force writes into a non-empty one):
  DIR/N-IIIIII.elf   the code object          DIR/N-IIIIII.s  its assembler
  DIR/manifest.jsonl one JSON object per case, in case order:
    id, seed, index, kind, target (V4+ target ID), code_object_version,
    expect (\"valid\" or the rule id a mutant must break), elf and asm
    (paths relative to DIR; asm only when the case has assembler text),
    sha256 (of the ELF), suite_entry (sgpr-suite, and mutants of one),
    mutation (mutants: the base kind and what the mutator changes),
    smem_instructions (cases whose kernels run SMEM instructions), and for
    sgpr-suite cases sgpr_enables (the enable bits) and layout (the initial
    SGPRs and VGPRs the oracle predicts: what hardware must set up)
  DIR/run.json       the options and the full knob configuration
Every file is written under a temporary name and renamed, so an
interrupted run leaves no half-written file (and no manifest).

The whole SGPR-enable suite (--suite): every enable combination of each
SGPR family of --targets (all eleven families by default: 328,704
entries, about 2.9 GB on disk; gfx90a alone is 116,736, gfx125 87,552),
named sgpr-FAMILY-POSITION in suite order, each with its layout in the
manifest; seed 0, and run.json lists the families with their processors
and entry counts.

Configuration: knob defaults, then --config FILE (JSON, or TOML when the
name ends in .toml; absent knobs keep their defaults), then --targets,
then each --set in order. `hsaco-conform gen --list-knobs` lists the knobs.

Exit status: 0 cases written, 2 could not run (bad option, configuration,
knob or target; unwritable directory).

Examples:
  hsaco-conform gen --seed 1 --count 10000 --out cases/
  hsaco-conform gen --seed 7 --count 500 --kinds valid --targets gfx90a,gfx11 --out /tmp/g
  hsaco-conform gen --count 2000 --kinds mutant --set max_kernels=1 --coverage cov.json --out m/
  hsaco-conform gen --config swarm.toml --set wave32=false --out w64/
  hsaco-conform gen --suite --targets gfx12,gfx1030 --out suite/
  hsaco-conform coverage cases/";

/// A kind of case, as `--kinds` and the manifest name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, ValueEnum)]
pub enum Kind {
    /// A random valid code object.
    Valid,
    /// An entry of the exhaustive SGPR enable suite.
    SgprSuite,
    /// A valid code object running a random SMEM instruction stream.
    Smem,
    /// A single-rule mutant.
    Mutant,
}

impl Kind {
    /// The name `--kinds` and the manifest use.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Valid => "valid",
            Kind::SgprSuite => "sgpr-suite",
            Kind::Smem => "smem",
            Kind::Mutant => "mutant",
        }
    }
}

/// Options of `gen`.
#[derive(Args, Debug)]
pub struct GenArgs {
    /// Seed of the run: case I of seed N is the same on every machine.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of cases to write.
    #[arg(long, default_value_t = 1000)]
    pub count: u64,
    /// Kinds of cases to write (see below) [default: every kind the
    /// targets allow].
    #[arg(long, value_enum, value_delimiter = ',')]
    pub kinds: Option<Vec<Kind>>,
    /// Processors and families to generate for, comma-separated: LLVM
    /// processor names (gfx900, gfx90a, gfx1100, gfx9-generic) or SGPR
    /// families (gfx6, gfx7, gfx8, gfx9, gfx94, gfx10, gfx11-init-bug,
    /// gfx11, gfx12; a processor name wins over a family of the same name).
    /// Sets the `targets` knob.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub targets: Option<Vec<String>>,
    /// Share of mutants among the cases (0 to 1) when `mutant` is one of
    /// several kinds.
    #[arg(long, default_value_t = 0.5, value_name = "RATIO")]
    pub mutants: f64,
    /// Knob configuration file (JSON, or TOML for *.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Sets one knob (repeatable), e.g. --set max_kernels=2 --set
    /// code_object_versions=5,6.
    #[arg(long = "set", value_name = "KNOB=VALUE")]
    pub set: Vec<String>,
    /// Directory to write the cases and the manifest to (created if
    /// missing).
    #[arg(long, value_name = "DIR", required_unless_present = "list_knobs")]
    pub out: Option<PathBuf>,
    /// Also write the coverage report of the generated set as JSON to
    /// FILE (and print its summary table).
    #[arg(long, value_name = "FILE.json")]
    pub coverage: Option<PathBuf>,
    /// Write into DIR even if it is not empty (files of the same name are
    /// replaced; other files stay).
    #[arg(long)]
    pub force: bool,
    /// Show a progress line on standard error even when it is not a
    /// terminal.
    #[arg(long)]
    pub progress: bool,
    /// Print every knob with its default and description, and exit.
    #[arg(long)]
    pub list_knobs: bool,
    /// Write the whole SGPR-enable suite instead of drawn cases: every
    /// enable combination of each SGPR family of --targets (every family
    /// by default), in suite order, each with the initial state the oracle
    /// predicts (manifest `layout`). Takes no --seed, --count, --kinds,
    /// --mutants, --config or --set.
    #[arg(long, conflicts_with_all = ["seed", "count", "kinds", "mutants", "config", "set"])]
    pub suite: bool,
    /// Write the case a `conform` report names (repeatable): its input
    /// name, e.g. descriptors.gfx90a.1.14.hsaco, a reduced one such as
    /// descriptors.gfx90a.1.14.d0_c1.hsaco, or a mutant such as
    /// mutants.gfx900.1.3@kd.reserved-bits.hsaco. The case is made again
    /// from the name alone (seed domain, seed, index; see "Seeds"). A
    /// `replay` probe is named by its SGPR suite entry,
    /// probe.sgpr.gfx90a.17.hsaco, or its SMEM stream's seed and index,
    /// probe.smem.gfx1100.1.4.hsaco.
    #[arg(
        long = "case",
        value_name = "NAME",
        conflicts_with_all = ["seed", "count", "kinds", "mutants", "config", "set", "suite"]
    )]
    pub cases: Vec<String>,
}

/// `run.json`: what a run was asked for, so it can be repeated.
#[derive(Debug, Serialize)]
struct RunRecord<'a> {
    tool: String,
    seed: u64,
    count: u64,
    kinds: Vec<&'static str>,
    mutants: f64,
    stream: &'static str,
    config: &'a Config,
}

/// Base cases drawn for a mutant's drawn mutator before any mutator will do.
const CHOSEN_TRIES: usize = 16;

/// Base cases then drawn for any mutator before the case fails.
const MUTANT_TRIES: usize = 8;

/// A case with what the manifest says about it beyond the case itself.
pub struct Built {
    /// The case.
    pub case: Case,
    /// The kind it was built as.
    pub kind: Kind,
    /// sgpr-suite: the suite entry's name.
    pub suite_entry: Option<String>,
    /// mutant: what changed.
    pub mutation: Option<String>,
    /// smem: SMEM instructions in the kernels.
    pub smem_instructions: Option<u64>,
    /// sgpr-suite: the entry's enable bits and the initial state the
    /// oracle predicts for its kernel.
    pub suite: Option<SuiteFacts>,
}

/// What the manifest says about an SGPR suite entry beyond its name.
#[derive(Debug, Clone)]
pub struct SuiteFacts {
    /// The enable bits ([`Enables`]) as JSON.
    pub enables: serde_json::Value,
    /// The oracle's initial state of the kernel (`hsaco_oracle::sgpr::
    /// initial_state` of its encoded descriptor) as JSON.
    pub layout: serde_json::Value,
}

/// The case of SGPR suite entry `entry`, named `id`, with the oracle's
/// predicted layout (`name` is the entry's `sgpr-FAMILY-POSITION`).
pub fn suite_built(entry: &SuiteEntry, id: String, name: String) -> Built {
    let object = hsaco_gen::suite_object(entry);
    // The oracle's prediction from the encoded descriptor (the suite's
    // tests show it equals the generator's own `entry.layout`).
    let layout = object.kernels.first().map(|k| {
        let kd = k.descriptor.encode(&object.target, 0);
        hsaco_oracle::sgpr::initial_state(&kd, entry.target)
    });
    let case = Case::from_object(id, CaseKind::SgprSuite, Expect::Valid, object);
    Built {
        case,
        kind: Kind::SgprSuite,
        suite_entry: Some(name),
        mutation: None,
        smem_instructions: None,
        suite: Some(SuiteFacts {
            enables: serde_json::to_value(entry.enables).unwrap_or_default(),
            // A suite object always has its one kernel; `null` otherwise.
            layout: serde_json::to_value(layout).unwrap_or_default(),
        }),
    }
}

/// Everything a run needs to build case after case.
pub struct Engine<'c> {
    gen: Generator<'c>,
    smem_gen: Option<Generator<'c>>,
    kinds: Vec<Kind>,
    /// Mutants are drawn when the first stream u32 is below this.
    mutant_threshold: u64,
    families: Vec<Family>,
    suites: Vec<Option<Vec<Enables>>>,
    buf: Vec<u8>,
}

impl<'c> Engine<'c> {
    /// Prepares a run of `kinds` (normalised: sorted, deduplicated; `None`
    /// for every kind the targets allow) with a share `mutants` of mutants
    /// under `cfg`; `smem_cfg` is [`smem_config`] of `cfg`.
    pub fn new(
        cfg: &'c Config,
        smem_cfg: Option<&'c Config>,
        kinds: Option<&[Kind]>,
        mutants: f64,
    ) -> Result<Engine<'c>, String> {
        let mut families: Vec<Family> = cfg
            .target_list()
            .into_iter()
            .filter_map(Family::of)
            .collect();
        families.sort();
        families.dedup();
        let mut kinds = match kinds {
            Some(k) => k.to_vec(),
            None => [Kind::Valid, Kind::SgprSuite, Kind::Smem, Kind::Mutant]
                .into_iter()
                .filter(|k| match k {
                    Kind::SgprSuite => !families.is_empty(),
                    Kind::Smem => smem_cfg.is_some(),
                    _ => true,
                })
                .collect(),
        };
        kinds.sort();
        kinds.dedup();
        if kinds.is_empty() {
            return Err("--kinds lists no kind".into());
        }
        if kinds.contains(&Kind::Smem) && smem_cfg.is_none() {
            return Err(
                "kind smem: no processor of the targets has SMEM instructions (GFX8 or later)"
                    .into(),
            );
        }
        if !(0.0..=1.0).contains(&mutants) {
            return Err(format!("--mutants {mutants} is not between 0 and 1"));
        }
        if kinds.contains(&Kind::SgprSuite) && families.is_empty() {
            return Err("kind sgpr-suite: the targets belong to no SGPR family".into());
        }
        // RATIO * 2^32, exactly representable for every ratio people type.
        let mutant_threshold = (mutants * 4_294_967_296.0) as u64;
        Ok(Engine {
            gen: Generator::new(cfg),
            smem_gen: smem_cfg.map(Generator::new),
            suites: vec![None; families.len()],
            families,
            kinds,
            mutant_threshold,
            buf: Vec::with_capacity(seed::FIRST_LEN),
        })
    }

    /// The normalised kinds.
    pub fn kinds(&self) -> &[Kind] {
        &self.kinds
    }

    /// Builds case `index` of `seed`.
    pub fn case(&mut self, seed: u64, index: u64) -> Result<Built, String> {
        let id = format!("{seed}-{index:06}");
        let mut buf = std::mem::take(&mut self.buf);
        let r = seed::with_bytes(seed, seed::GEN, index, &mut buf, |u| self.build(u, &id));
        self.buf = buf;
        let mut b = r.map_err(|e| match e {
            Failure::Generator(e) => format!("case {id}: the generator failed: {e}"),
            Failure::NoMutant => format!(
                "case {id}: no mutator applies to any of {MUTANT_TRIES} drawn base cases \
                 (do the knobs leave nothing to break?)"
            ),
        })?;
        b.case.seed = Some(seed);
        b.smem_instructions = Some(smem_instructions(&b.case)).filter(|&n| n > 0);
        Ok(b)
    }

    fn build(&mut self, u: &mut Unstructured<'_>, id: &str) -> Result<Built, Failure> {
        let kind = self.draw_kind(u)?;
        match kind {
            Kind::Mutant => self.mutant(u, id),
            k => Ok(self.non_mutant(u, id, k)?),
        }
    }

    /// The kind of a case: a mutant when the stream's first u32 is below
    /// the threshold (only drawn when `mutant` is listed with other
    /// kinds), else one of the other kinds, uniformly.
    fn draw_kind(&self, u: &mut Unstructured<'_>) -> arbitrary::Result<Kind> {
        let others: Vec<Kind> = self
            .kinds
            .iter()
            .copied()
            .filter(|&k| k != Kind::Mutant)
            .collect();
        if others.is_empty() {
            return Ok(Kind::Mutant);
        }
        if self.kinds.contains(&Kind::Mutant) {
            let x: u32 = u.arbitrary()?;
            if u64::from(x) < self.mutant_threshold {
                return Ok(Kind::Mutant);
            }
        }
        Ok(*u.choose(&others)?)
    }

    fn non_mutant_kinds(&self) -> Vec<Kind> {
        let v: Vec<Kind> = self
            .kinds
            .iter()
            .copied()
            .filter(|&k| k != Kind::Mutant)
            .collect();
        if v.is_empty() {
            vec![Kind::Valid]
        } else {
            v
        }
    }

    fn non_mutant(
        &mut self,
        u: &mut Unstructured<'_>,
        id: &str,
        kind: Kind,
    ) -> arbitrary::Result<Built> {
        let mut b = Built {
            case: match kind {
                Kind::SgprSuite => return self.suite_case(u, id),
                Kind::Smem => return self.smem_case(u, id),
                _ => self.gen.valid_case(u, id.to_owned())?,
            },
            kind,
            suite_entry: None,
            mutation: None,
            smem_instructions: None,
            suite: None,
        };
        b.kind = kind;
        Ok(b)
    }

    fn suite_case(&mut self, u: &mut Unstructured<'_>, id: &str) -> arbitrary::Result<Built> {
        let fi = u.choose_index(self.families.len())?;
        let family = self.families[fi];
        let entries =
            self.suites[fi].get_or_insert_with(|| sgpr::suite(family).map(|e| e.enables).collect());
        let pos = u.choose_index(entries.len())?;
        let enables = entries[pos];
        let target = family.representative();
        let entry = SuiteEntry {
            family,
            target,
            enables,
            layout: enables.layout(target),
        };
        Ok(suite_built(
            &entry,
            id.to_owned(),
            format!("sgpr-{}-{pos}", family.name()),
        ))
    }

    fn smem_case(&mut self, u: &mut Unstructured<'_>, id: &str) -> arbitrary::Result<Built> {
        // Engine::new refuses the smem kind without an SMEM configuration.
        let g = self
            .smem_gen
            .as_ref()
            .ok_or(arbitrary::Error::IncorrectFormat)?;
        let case = g.valid_case(u, id.to_owned())?;
        Ok(Built {
            case,
            kind: Kind::Smem,
            suite_entry: None,
            mutation: None,
            smem_instructions: None,
            suite: None,
        })
    }

    /// A mutant: a base case of a drawn non-mutant kind, mutated by a
    /// drawn mutator that applies to it; up to [`MUTANT_TRIES`] bases are
    /// drawn (from the same stream) before giving up.
    fn mutant(&mut self, u: &mut Unstructured<'_>, id: &str) -> Result<Built, Failure> {
        let bases = self.non_mutant_kinds();
        // The mutator is drawn first, so that each gets an even share of
        // the mutants whatever its base needs (a generic target, code
        // object V2, an SMEM stream); bases are then drawn until it
        // applies, and after CHOSEN_TRIES any mutator that applies will do.
        // A V2 mutator takes V2 bases (one version of five, of the valid
        // kind only, in the default mix).
        let ms = mutate::mutators();
        let chosen = ms.get(u.choose_index(ms.len())?);
        let v2_cfg = (chosen.is_some_and(mutate::for_v2)
            && bases.contains(&Kind::Valid)
            && self.gen.config().code_object_versions.contains(&2))
        .then(|| Config {
            code_object_versions: vec![2],
            ..self.gen.config().clone()
        });
        for t in 0..CHOSEN_TRIES + MUTANT_TRIES {
            let kind = if v2_cfg.is_some() {
                Kind::Valid
            } else {
                *u.choose(&bases)?
            };
            let base = match &v2_cfg {
                Some(cfg) if t < CHOSEN_TRIES => {
                    match Generator::new(cfg).valid_case(u, id.to_owned()) {
                        Ok(case) => Built {
                            case,
                            kind,
                            suite_entry: None,
                            mutation: None,
                            smem_instructions: None,
                            suite: None,
                        },
                        // No processor of the targets takes V2: any base.
                        Err(_) => {
                            let k = *u.choose(&bases)?;
                            self.non_mutant(u, id, k)?
                        }
                    }
                }
                _ => self.non_mutant(u, id, kind)?,
            };
            let mutant = match chosen {
                Some(c) if t < CHOSEN_TRIES => c.apply(&base.case, u),
                _ => mutate::arbitrary_mutant(&base.case, u),
            };
            if let Some(mut m) = mutant {
                m.id = id.to_owned();
                let rule = m.expect.as_str();
                let hows: Vec<&str> = mutate::mutators()
                    .iter()
                    .filter(|x| x.rule.id == rule)
                    .map(|x| x.how)
                    .collect();
                let mutation = match hows.as_slice() {
                    [one] => format!("{}: {one}", kind.name()),
                    many => format!("{}: one of: {}", kind.name(), many.join("; ")),
                };
                return Ok(Built {
                    case: m,
                    kind: Kind::Mutant,
                    suite_entry: base.suite_entry,
                    mutation: Some(mutation),
                    smem_instructions: None,
                    // A mutant may break the layout: no prediction.
                    suite: None,
                });
            }
        }
        Err(Failure::NoMutant)
    }
}

/// Why a case could not be built.
enum Failure {
    /// A generator returned an error (only when the configuration allows
    /// nothing, which validation rules out).
    Generator(arbitrary::Error),
    /// No mutator applied to any drawn base case.
    NoMutant,
}

impl From<arbitrary::Error> for Failure {
    fn from(e: arbitrary::Error) -> Failure {
        Failure::Generator(e)
    }
}

/// The configuration of the smem kind: `cfg` with SMEM streams on, at
/// least one instruction per stream, and only the processors that have
/// SMEM instructions; `None` if there is none.
pub fn smem_config(cfg: &Config) -> Option<Config> {
    let mut c = cfg.clone();
    c.smem_streams = true;
    c.smem_min_len = c.smem_min_len.max(1);
    c.smem_max_len = c.smem_max_len.max(c.smem_min_len);
    c.targets
        .retain(|n| targets::by_name(n).is_some_and(|t| SmemGen::for_target(t).is_some()));
    c.validate().ok()?;
    Some(c)
}

/// SMEM instructions in a case's kernels (read from its model's code as
/// the coverage check reads it from the ELF).
pub fn smem_instructions(case: &Case) -> u64 {
    let Some(gen) = SmemGen::for_target(case.object.target.target()) else {
        return 0;
    };
    case.object
        .kernels
        .iter()
        .map(|k| {
            let bytes: Vec<u8> = k.code.iter().flat_map(|w| w.to_le_bytes()).collect();
            crate::coverage::code_steps(gen, &bytes).1.len() as u64
        })
        .sum()
}

/// Resolves `--targets` names: processors by LLVM name, else SGPR families
/// (every HSA processor of the family).
pub fn resolve_targets(names: &[String]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for raw in names {
        let n = raw.trim();
        if n.is_empty() {
            continue;
        }
        if let Some(t) = targets::by_name(n) {
            if !t.hsa {
                return Err(format!("--targets: `{n}` is not an HSA (amdgcn) processor"));
            }
            out.push(t.name.to_owned());
            continue;
        }
        let Some(f) = Family::ALL.iter().find(|f| f.name() == n) else {
            let fams: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            let procs: Vec<&str> = targets::hsa_targets().map(|t| t.name).collect();
            return Err(format!(
                "--targets: unknown processor or family `{n}`\n  families: {}\n  processors: {}",
                fams.join(", "),
                procs.join(", ")
            ));
        };
        out.extend(
            targets::hsa_targets()
                .filter(|t| Family::of(t) == Some(*f))
                .map(|t| t.name.to_owned()),
        );
    }
    if out.is_empty() {
        return Err("--targets names no processor".into());
    }
    Ok(out)
}

/// Reads a configuration file, naming the offending key when a knob's
/// value is wrong (serde's own message may only give a line and column).
pub fn config_from_file(path: &Path) -> Result<Config, String> {
    match Config::from_file(path) {
        Ok(c) => Ok(c),
        Err(ConfigError::Parse(e)) => Err(match blame_key(path) {
            Some(k) => format!("{}: {k}", path.display()),
            None => format!("{}: {e}", path.display()),
        }),
        Err(ConfigError::Io(e)) => Err(format!("cannot read configuration {e}")),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Finds the first key of a configuration file whose value alone does not
/// make a configuration, and says why.
fn blame_key(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let doc: serde_json::Value = if path.extension().is_some_and(|e| e == "toml") {
        let t: toml::Table = toml::from_str(&text).ok()?;
        serde_json::to_value(t).ok()?
    } else {
        serde_json::from_str(&text).ok()?
    };
    let obj = doc.as_object()?;
    for (k, v) in obj {
        if !Config::KNOBS.iter().any(|(n, _)| n == k) {
            return Some(ConfigError::UnknownKnob(k.clone()).to_string());
        }
        let one = serde_json::json!({ k: v });
        if let Err(e) = serde_json::from_value::<Config>(one) {
            return Some(format!("knob `{k}`: {e}"));
        }
    }
    None
}

/// Builds the run's configuration from the options.
pub fn build_config(args: &GenArgs) -> Result<Config, String> {
    let mut cfg = match &args.config {
        Some(p) => config_from_file(p)?,
        None => Config::default(),
    };
    if let Some(t) = &args.targets {
        let names = resolve_targets(t)?;
        let mut c = cfg.clone();
        c.targets = names;
        c.validate().map_err(|e| format!("--targets: {e}"))?;
        cfg = c;
    }
    for s in &args.set {
        let Some((k, v)) = s.split_once('=') else {
            return Err(format!("--set {s}: expected KNOB=VALUE"));
        };
        cfg.set(k.trim(), v.trim())
            .map_err(|e| format!("--set {s}: {e}"))?;
    }
    cfg.sanitize();
    Ok(cfg)
}

/// Prints every knob with its default and description.
pub fn list_knobs() -> String {
    let defaults = serde_json::to_value(Config::default()).unwrap_or_default();
    let mut s = String::from(
        "Knobs (--set KNOB=VALUE, or keys of a --config file). Lists take\n\
         comma-separated words or JSON (`targets=gfx90a,gfx1100`, `code_object_versions=[5,6]`).\n\n",
    );
    for (name, lines) in Config::KNOB_DOCS {
        let d = match defaults.get(*name) {
            Some(serde_json::Value::Array(items)) => {
                let words: Vec<String> = items
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                    .collect();
                wrap(&words.join(","), 72, "      ")
            }
            Some(v) => v.to_string(),
            None => String::new(),
        };
        // The whole documentation, as one paragraph wrapped to the width
        // of the lists.
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        let _ = writeln!(s, "{name} = {d}\n{}", wrap_words(&words, 76, "    "));
    }
    s
}

/// Fills lines of at most `width` characters (a longer word stands alone)
/// with `words`, each line starting with `indent`.
fn wrap_words(words: &[&str], width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = 0usize;
    for w in words {
        if line > indent.len() && line + 1 + w.len() > width {
            out.push('\n');
            line = 0;
        }
        if line == 0 {
            out.push_str(indent);
            line = indent.len();
        } else {
            out.push(' ');
            line += 1;
        }
        out.push_str(w);
        line += w.len();
    }
    out
}

/// Breaks a comma-separated list after commas so that no line is longer
/// than `width`; continuation lines start with `indent`.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = 0usize;
    for (i, w) in text.split(',').enumerate() {
        let piece = if i == 0 {
            w.to_owned()
        } else {
            format!(",{w}")
        };
        if line + piece.len() > width && line > 0 {
            out.push_str(",\n");
            out.push_str(indent);
            out.push_str(w);
            line = indent.len() + w.len();
        } else {
            out.push_str(&piece);
            line += piece.len();
        }
    }
    out
}

/// The manifest line of a built case whose files are named after its id.
pub fn manifest_entry(b: &Built, seed: u64, index: u64) -> ManifestEntry {
    let c = &b.case;
    ManifestEntry {
        id: c.id.clone(),
        seed,
        index,
        kind: b.kind.name().to_owned(),
        target: c.target.clone(),
        code_object_version: c.code_object_version,
        expect: c.expect.as_str().to_owned(),
        elf: format!("{}.elf", c.id),
        asm: (!c.asm.is_empty()).then(|| format!("{}.s", c.id)),
        sha256: sha256_hex(&c.elf),
        suite_entry: b.suite_entry.clone(),
        mutation: b.mutation.clone(),
        smem_instructions: b.smem_instructions,
        sgpr_enables: b.suite.as_ref().map(|f| f.enables.clone()),
        layout: b.suite.as_ref().map(|f| f.layout.clone()),
    }
}

/// A progress line on standard error, redrawn at most five times a second.
struct Progress {
    on: bool,
    start: Instant,
    last: Instant,
    total: u64,
}

impl Progress {
    fn new(on: bool, total: u64) -> Progress {
        let now = Instant::now();
        Progress {
            on,
            start: now,
            last: now,
            total,
        }
    }

    fn tick(&mut self, done: u64) {
        if !self.on || self.last.elapsed() < Duration::from_millis(200) {
            return;
        }
        self.last = Instant::now();
        self.draw(done);
    }

    fn draw(&self, done: u64) {
        let s = self.start.elapsed().as_secs_f64().max(1e-9);
        let pct = if self.total == 0 {
            100.0
        } else {
            done as f64 * 100.0 / self.total as f64
        };
        eprint!(
            "\rgen: {done}/{} cases ({pct:.0}%), {:.0} cases/s   ",
            self.total,
            done as f64 / s
        );
    }

    fn finish(&self, done: u64) {
        if self.on {
            self.draw(done);
            eprintln!();
        }
    }
}

/// Runs `gen`; returns the exit status.
pub fn run(args: &GenArgs) -> u8 {
    if args.list_knobs {
        out!("{}", list_knobs());
        return 0;
    }
    match run_inner(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("hsaco-conform gen: {e}");
            2
        }
    }
}

fn prepare_dir(dir: &Path, force: bool) -> Result<(), String> {
    if dir.exists() {
        if !dir.is_dir() {
            return Err(format!("{}: not a directory", dir.display()));
        }
        let nonempty = fs::read_dir(dir)
            .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
            .next()
            .is_some();
        if nonempty && !force {
            return Err(format!(
                "{} is not empty (use --force to write into it)",
                dir.display()
            ));
        }
    } else {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    // Fail before generating anything if the directory is not writable.
    let probe = hsaco_conform::files::temp_path(&dir.join("probe"));
    fs::write(&probe, b"").map_err(|e| format!("cannot write to {}: {e}", dir.display()))?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

fn run_inner(args: &GenArgs) -> Result<(), String> {
    let Some(dir) = args.out.as_deref() else {
        return Err("--out DIR is required".into());
    };
    if args.suite {
        return run_suite(args, dir);
    }
    if !args.cases.is_empty() {
        return run_named(args, dir);
    }
    let cfg = build_config(args)?;
    let smem_cfg = smem_config(&cfg);
    let mut engine = Engine::new(&cfg, smem_cfg.as_ref(), args.kinds.as_deref(), args.mutants)?;
    prepare_dir(dir, args.force)?;
    let werr = |p: &Path, e: io::Error| format!("cannot write {}: {e}", p.display());

    let record = RunRecord {
        tool: format!("hsaco-conform {}", env!("CARGO_PKG_VERSION")),
        seed: args.seed,
        count: args.count,
        kinds: engine.kinds().iter().map(|k| k.name()).collect(),
        mutants: args.mutants,
        stream: seed::DESCRIPTION,
        config: &cfg,
    };
    let run_path = dir.join("run.json");
    let run_json = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())? + "\n";
    write_atomic(&run_path, run_json.as_bytes()).map_err(|e| werr(&run_path, e))?;

    let (tally, coverage) = write_cases(dir, args, args.count, |index| {
        Ok((engine.case(args.seed, index)?, args.seed, index))
    })?;
    summarize(args, dir, &tally, coverage)
}

/// `run.json` of a `--suite` run.
#[derive(Debug, Serialize)]
struct SuiteRecord {
    tool: String,
    suite: &'static str,
    families: Vec<SuiteFamily>,
}

/// One family of a `--suite` run.
#[derive(Debug, Serialize)]
struct SuiteFamily {
    family: &'static str,
    processor: &'static str,
    entries: usize,
}

/// `gen --suite`: every entry of the SGPR-enable suite of the families of
/// `--targets` (all by default).
fn run_suite(args: &GenArgs, dir: &Path) -> Result<(), String> {
    let mut families: Vec<Family> = match &args.targets {
        Some(t) => resolve_targets(t)?
            .iter()
            .filter_map(|n| targets::by_name(n).and_then(Family::of))
            .collect(),
        None => Family::ALL.to_vec(),
    };
    families.sort();
    families.dedup();
    if families.is_empty() {
        return Err("--suite: the targets belong to no SGPR family".into());
    }
    prepare_dir(dir, args.force)?;
    let record = SuiteRecord {
        tool: format!("hsaco-conform {}", env!("CARGO_PKG_VERSION")),
        suite: "sgpr-enable",
        families: families
            .iter()
            .map(|f| SuiteFamily {
                family: f.name(),
                processor: f.representative().name,
                entries: sgpr::suite_len(*f),
            })
            .collect(),
    };
    let run_path = dir.join("run.json");
    let run_json = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())? + "\n";
    write_atomic(&run_path, run_json.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", run_path.display()))?;
    let total: usize = record.families.iter().map(|f| f.entries).sum();
    let mut entries = families.iter().flat_map(|&f| {
        sgpr::suite(f)
            .enumerate()
            .map(move |(pos, e)| (format!("sgpr-{}-{pos}", f.name()), e))
    });
    let (tally, coverage) = write_cases(dir, args, total as u64, |index| {
        let (name, e) = entries
            .next()
            .ok_or_else(|| "the suite ended early".to_owned())?;
        Ok((suite_built(&e, name.clone(), name), 0, index))
    })?;
    summarize(args, dir, &tally, coverage)
}

/// `gen --case NAME...`: the cases `conform` named, made again from their
/// names, written as `gen` writes its own (files named after the case
/// name without `.hsaco`; the manifest's seed and index are the name's).
fn run_named(args: &GenArgs, dir: &Path) -> Result<(), String> {
    use hsaco_conform::conform::cases;
    let mut built = Vec::with_capacity(args.cases.len());
    for name in &args.cases {
        let file = if name.ends_with(".hsaco") {
            name.clone()
        } else {
            format!("{name}.hsaco")
        };
        // Probe kernels (`replay --plan`) are named by suite position.
        if file.starts_with("probe.") {
            let object = hsaco_gen::probe::sgpr_probe_by_name(&file)
                .map(|p| p.object)
                .or_else(|| hsaco_gen::probe::smem::smem_probe_by_name(&file).map(|p| p.object))
                .ok_or_else(|| {
                    format!(
                        "--case {name}: names no probe (probe.sgpr.CPU.INDEX: CPU a processor \
                         the oracle models, INDEX below its family's SGPR suite size; or \
                         probe.smem.CPU.SEED.INDEX for a processor with SMEM)"
                    )
                })?;
            let id = file.trim_end_matches(".hsaco").to_owned();
            let case = hsaco_gen::Case::from_object(
                id,
                hsaco_gen::CaseKind::SgprSuite,
                Expect::Valid,
                object,
            );
            let b = Built {
                case,
                kind: Kind::Valid,
                suite_entry: None,
                mutation: None,
                smem_instructions: None,
                suite: None,
            };
            built.push((b, 0, 0));
            continue;
        }
        let (_, seed, index) = cases::coordinates(&file).ok_or_else(|| {
            format!(
                "--case {name}: not the name of a conform case \
                 (KIND.CPU.SEED.INDEX[.EDITS].hsaco or mutants.CPU.SEED.INDEX@RULE.hsaco)"
            )
        })?;
        let mut case = cases::case_of(&file).ok_or_else(|| {
            // A mutant name whose rule is not the one its coordinates
            // break: say which rule they do break.
            let other = file.split_once('@').and_then(|(stem, _)| {
                let t = hsaco_oracle::targets::by_name(stem.split('.').nth(1)?)?;
                let c = cases::mutant(t, seed, 0, index)?;
                Some(format!("; {stem} breaks {}", c.expect.as_str()))
            });
            format!(
                "--case {name}: names no case (an unknown processor or comparison, \
                 an edit that changes nothing, or a mutant of another rule){}",
                other.unwrap_or_default()
            )
        })?;
        case.id = file.trim_end_matches(".hsaco").to_owned();
        let kind = if case.expect == Expect::Valid {
            Kind::Valid
        } else {
            Kind::Mutant
        };
        let mutation = (kind == Kind::Mutant).then(|| format!("breaks {}", case.expect.as_str()));
        let b = Built {
            case,
            kind,
            suite_entry: None,
            mutation,
            smem_instructions: None,
            suite: None,
        };
        built.push((b, seed, index));
    }
    prepare_dir(dir, args.force)?;
    let mut it = built.into_iter();
    let (tally, coverage) = write_cases(dir, args, args.cases.len() as u64, |_| {
        it.next()
            .ok_or_else(|| "the named cases ended early".to_owned())
    })?;
    summarize(args, dir, &tally, coverage)
}

/// Cases written, by [`Kind`].
type Tally = [u64; 4];

/// Writes `count` cases, case `index` from `next(index)` (the case, its
/// seed and its index for the manifest), each file atomically, then `manifest.jsonl` (renamed into place
/// only when every case is written); shows progress and gathers coverage
/// when asked.
fn write_cases(
    dir: &Path,
    args: &GenArgs,
    count: u64,
    mut next: impl FnMut(u64) -> Result<(Built, u64, u64), String>,
) -> Result<(Tally, Option<Coverage>), String> {
    let werr = |p: &Path, e: io::Error| format!("cannot write {}: {e}", p.display());
    let manifest_path = dir.join("manifest.jsonl");
    let manifest_tmp = hsaco_conform::files::temp_path(&manifest_path);
    let file = fs::File::create(&manifest_tmp).map_err(|e| werr(&manifest_tmp, e))?;
    let mut manifest = io::BufWriter::new(file);
    let mut coverage = args.coverage.as_ref().map(|_| Coverage::new());
    let mut progress = Progress::new(args.progress || io::stderr().is_terminal(), count);
    let mut tally: Tally = [0; 4];

    let result = (|| -> Result<(), String> {
        for index in 0..count {
            let (b, seed, case_index) = next(index)?;
            let entry = manifest_entry(&b, seed, case_index);
            let elf_path = dir.join(&entry.elf);
            write_atomic(&elf_path, &b.case.elf).map_err(|e| werr(&elf_path, e))?;
            if let Some(a) = &entry.asm {
                let p = dir.join(a);
                write_atomic(&p, b.case.asm.as_bytes()).map_err(|e| werr(&p, e))?;
            }
            let line = serde_json::to_string(&entry).map_err(|e| e.to_string())?;
            writeln!(manifest, "{line}").map_err(|e| werr(&manifest_tmp, e))?;
            if let Some(c) = coverage.as_mut() {
                c.add(&entry, &b.case.elf);
            }
            tally[b.kind as usize] += 1;
            progress.tick(index + 1);
        }
        manifest.flush().map_err(|e| werr(&manifest_tmp, e))?;
        fs::rename(&manifest_tmp, &manifest_path).map_err(|e| werr(&manifest_path, e))
    })();
    progress.finish(count.min(tally.iter().sum()));
    if let Err(e) = result {
        let _ = fs::remove_file(&manifest_tmp);
        return Err(e);
    }
    Ok((tally, coverage))
}

/// Prints what a run wrote, and writes its coverage report.
fn summarize(
    args: &GenArgs,
    dir: &Path,
    tally: &Tally,
    coverage: Option<Coverage>,
) -> Result<(), String> {
    let kinds = [Kind::Valid, Kind::SgprSuite, Kind::Smem, Kind::Mutant];
    let parts: Vec<String> = kinds
        .iter()
        .filter(|k| tally[**k as usize] > 0)
        .map(|k| format!("{} {}", tally[*k as usize], k.name()))
        .collect();
    outln!(
        "wrote {} cases to {} ({})",
        tally.iter().sum::<u64>(),
        dir.display(),
        if parts.is_empty() {
            "none".to_owned()
        } else {
            parts.join(", ")
        }
    );
    if let (Some(path), Some(c)) = (&args.coverage, coverage) {
        let report = c.report();
        report
            .write_json(path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        out!("{}", report.text());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_expand_and_processors_win() {
        let g = resolve_targets(&["gfx11-init-bug".into()]).expect("family");
        let want: Vec<String> = targets::hsa_targets()
            .filter(|t| Family::of(t) == Some(Family::Gfx11InitBug))
            .map(|t| t.name.to_owned())
            .collect();
        assert_eq!(g, want);
        assert!(g.contains(&"gfx1100".to_owned()));
        assert_eq!(
            resolve_targets(&["gfx90a".into()]).expect("processor"),
            ["gfx90a"]
        );
        assert!(resolve_targets(&["gfx9000".into()]).is_err());
        assert!(resolve_targets(&["r600".into()]).is_err());
    }

    /// Case I is the same whichever cases were built before it, and the
    /// share of mutants follows --mutants.
    #[test]
    fn cases_are_independent_and_kinds_follow_the_ratio() {
        let cfg = Config::default();
        let smem = smem_config(&cfg);
        let mut a = Engine::new(&cfg, smem.as_ref(), None, 0.25).expect("engine");
        let mut b = Engine::new(&cfg, smem.as_ref(), None, 0.25).expect("engine");
        let mut mutants = 0;
        let mut kinds = std::collections::BTreeSet::new();
        for i in 0..80 {
            let c = a.case(5, i).expect("builds");
            kinds.insert(c.kind);
            mutants += usize::from(c.kind == Kind::Mutant);
        }
        assert_eq!(kinds.len(), 4, "every kind appears in 80 cases");
        assert!(
            (10..=30).contains(&mutants),
            "{mutants} mutants of 80 at 0.25"
        );
        let late = b.case(5, 79).expect("builds");
        let again = a.case(5, 79).expect("builds");
        assert_eq!(late.case.elf, again.case.elf);
        assert_eq!(manifest_entry(&late, 5, 79), manifest_entry(&again, 5, 79));
    }
}
