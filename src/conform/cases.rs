//! Generated object cases of the object-level comparisons: how a case is
//! drawn from the seed, the name that makes it again, and the model-level
//! edits the reducer applies ([`Edit`]).
//!
//! A case name is `KIND.CPU.SEED.INDEX[.EDITS].hsaco`: the seed domain
//! `KIND.CPU` ([`hsaco_gen::seed`]), the seed and the case's index in the
//! domain, then the reducer's edits; everything the case holds is a
//! function of that name only, and `gen --case NAME` writes it.

use hsaco_gen::mutate::{self, Mutator};
use hsaco_gen::{seed, Case, CodeObject, Config, Generator};
use hsaco_oracle::targets::{self, Target};
use hsaco_oracle::Severity;

use super::ComparisonId;
use super::Input;

/// Objects per unit of work.
pub(crate) const PER_CHUNK: u64 = 4;

// ------------------------------------------------------------- generation

/// The seed domain ([`hsaco_gen::seed`]) of comparison `kind`'s cases on
/// processor `cpu`: `KIND.CPU`.
pub fn domain(kind: ComparisonId, cpu: &str) -> String {
    format!("{}.{cpu}", kind.as_str())
}

/// The index, in its domain, of case `index` of chunk `chunk`.
fn case_index(chunk: u64, index: u64) -> u64 {
    chunk.saturating_mul(PER_CHUNK).saturating_add(index)
}

/// The file name that names a generated case: `KIND.CPU.SEED.INDEX.hsaco`
/// (the domain, the seed and the case's index in the domain; processor
/// names hold no dots), for case `index` of chunk `chunk`.
pub(crate) fn case_name(
    kind: ComparisonId,
    cpu: &str,
    seed: u64,
    chunk: u64,
    index: u64,
) -> String {
    let i = case_index(chunk, index);
    format!("{}.{seed}.{i}.hsaco", domain(kind, cpu))
}

/// The generator configuration of a comparison on one processor.
pub(crate) fn config(kind: ComparisonId, target: &Target) -> Config {
    let mut cfg = Config {
        targets: vec![target.name.to_owned()],
        ..Config::default()
    };
    if kind == ComparisonId::Rebuild {
        cfg.rebuildable_only = true;
    } else if matches!(kind, ComparisonId::Descriptors | ComparisonId::Metadata) {
        // Code object V2 has no kernel descriptors and no MessagePack
        // metadata note.
        cfg.code_object_versions.retain(|v| *v >= 3);
    }
    cfg
}

/// One reduction step on a generated case's model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Drop kernel K (`dK`).
    DropKernel(usize),
    /// Reduce kernel K's code to a lone `s_endpgm` (`cK`).
    Code(usize),
    /// Empty kernel K's argument list (`aK`).
    Args(usize),
    /// Reset kernel K's optional metadata fields (language, sizes and
    /// hints, spill counts, kind) to absent (`oK`).
    Optional(usize),
    /// Empty the printf list (`p`).
    Printf,
}

impl Edit {
    /// The edit's name in a case name.
    pub fn token(self) -> String {
        match self {
            Edit::DropKernel(k) => format!("d{k}"),
            Edit::Code(k) => format!("c{k}"),
            Edit::Args(k) => format!("a{k}"),
            Edit::Optional(k) => format!("o{k}"),
            Edit::Printf => "p".to_owned(),
        }
    }

    /// Parses [`Edit::token`].
    pub fn parse(t: &str) -> Option<Edit> {
        if t == "p" {
            return Some(Edit::Printf);
        }
        let (head, k) = t.split_at_checked(1)?;
        let k: usize = k.parse().ok()?;
        Some(match head {
            "d" => Edit::DropKernel(k),
            "c" => Edit::Code(k),
            "a" => Edit::Args(k),
            "o" => Edit::Optional(k),
            _ => return None,
        })
    }

    /// Applies the edit to `co`; false when it changes nothing (or names
    /// no kernel).
    pub fn apply(self, co: &mut CodeObject) -> bool {
        let t = co.target.target();
        match self {
            Edit::DropKernel(k) => {
                if co.kernels.len() < 2 || k >= co.kernels.len() {
                    return false;
                }
                co.kernels.remove(k);
                true
            }
            Edit::Printf => !std::mem::take(&mut co.printf).is_empty(),
            Edit::Code(k) => {
                let Some(kern) = co.kernels.get_mut(k) else {
                    return false;
                };
                let end = vec![hsaco_gen::object::s_endpgm(t)];
                if kern.code == end {
                    return false;
                }
                kern.code = end;
                true
            }
            Edit::Args(k) => co
                .kernels
                .get_mut(k)
                .is_some_and(|kern| !std::mem::take(&mut kern.metadata.args).is_empty()),
            Edit::Optional(k) => {
                let Some(kern) = co.kernels.get_mut(k) else {
                    return false;
                };
                let m = &mut kern.metadata;
                let before = m.clone();
                m.language = None;
                m.language_version = None;
                m.reqd_workgroup_size = None;
                m.workgroup_size_hint = None;
                m.vec_type_hint = None;
                m.device_enqueue_symbol = None;
                m.max_num_workgroups = None;
                m.sgpr_spill_count = None;
                m.vgpr_spill_count = None;
                m.kind = None;
                *m != before
            }
        }
    }
}

/// The name of a case (its generation coordinates and edits).
pub(crate) struct CaseName<'a> {
    kind: ComparisonId,
    cpu: &'a str,
    seed: u64,
    index: u64,
    edits: Vec<Edit>,
}

pub(crate) fn parse_name(name: &str) -> Option<CaseName<'_>> {
    let stem = name.strip_suffix(".hsaco")?;
    let mut it = stem.split('.');
    let (kind, cpu, seed, index) = (
        it.next()?.parse::<ComparisonId>().ok()?,
        it.next()?,
        it.next()?.parse::<u64>().ok()?,
        it.next()?.parse::<u64>().ok()?,
    );
    let edits = match it.next() {
        Some(e) => e.split('_').map(Edit::parse).collect::<Option<Vec<_>>>()?,
        None => Vec::new(),
    };
    if it.next().is_some() {
        return None;
    }
    Some(CaseName {
        kind,
        cpu,
        seed,
        index,
        edits,
    })
}

pub(crate) fn edited_name(n: &CaseName<'_>, edits: &[Edit]) -> String {
    let base = case_name(n.kind, n.cpu, n.seed, 0, n.index);
    if edits.is_empty() {
        return base;
    }
    let stem = base.strip_suffix(".hsaco").unwrap_or(&base);
    let tokens: Vec<String> = edits.iter().map(|e| e.token()).collect();
    format!("{stem}.{}.hsaco", tokens.join("_"))
}

/// The seed coordinates a case name holds: the seed domain, the seed and
/// the index (of a valid case, a reduced one or a mutant).
pub fn coordinates(name: &str) -> Option<(String, u64, u64)> {
    let stem = name.strip_suffix(".hsaco")?;
    let stem = stem.split_once('@').map_or(stem, |x| x.0);
    let mut it = stem.split('.');
    let (kind, cpu) = (it.next()?.parse::<ComparisonId>().ok()?, it.next()?);
    let seed = it.next()?.parse().ok()?;
    let index = it.next()?.parse().ok()?;
    Some((domain(kind, cpu), seed, index))
}

/// The case `name` stands for, made again: a valid case
/// (`KIND.CPU.SEED.INDEX[.EDITS].hsaco`, see the module docs) or a mutant
/// (`mutants.CPU.SEED.INDEX@RULE.hsaco`).
pub fn case_of(name: &str) -> Option<Case> {
    if name.contains('@') {
        return mutant_of(name);
    }
    let n = parse_name(name)?;
    let target = targets::by_name(n.cpu)?;
    let cfg = config(n.kind, target);
    let case = generate(&Generator::new(&cfg), n.kind, target, n.seed, 0, n.index)?;
    if n.edits.is_empty() {
        return Some(case);
    }
    let mut object = case.object.clone();
    for e in &n.edits {
        if !e.apply(&mut object) {
            return None;
        }
    }
    Some(Case::from_object(
        name.to_owned(),
        case.kind,
        case.expect,
        object,
    ))
}

/// Smaller variants of a generated object (see the module docs), most
/// aggressive first: each kernel dropped, then the printf list emptied,
/// then per kernel its code, arguments and optional fields reset. Objects
/// whose name names no generated case have none.
pub fn shrink_object(input: &Input) -> Vec<Input> {
    let Input::File { name, .. } = input else {
        return Vec::new();
    };
    let (Some(n), Some(case)) = (parse_name(name), case_of(name)) else {
        return Vec::new();
    };
    let co = &case.object;
    let mut edits: Vec<Edit> = (0..co.kernels.len()).map(Edit::DropKernel).collect();
    edits.push(Edit::Printf);
    for k in 0..co.kernels.len() {
        edits.extend([Edit::Code(k), Edit::Args(k), Edit::Optional(k)]);
    }
    edits
        .into_iter()
        .filter_map(|e| {
            let mut object = co.clone();
            if !e.apply(&mut object) {
                return None;
            }
            let mut all = n.edits.clone();
            all.push(e);
            Some(Input::File {
                name: edited_name(&n, &all),
                bytes: hsaco_gen::emit::elf_bytes(&object),
            })
        })
        .collect()
}

/// Valid case `index` of chunk `chunk` of comparison `kind` on `target`
/// under `seed`, drawn from the stream of its name's coordinates.
pub(crate) fn generate(
    gen: &Generator<'_>,
    kind: ComparisonId,
    target: &Target,
    seed: u64,
    chunk: u64,
    index: u64,
) -> Option<Case> {
    let name = case_name(kind, target.name, seed, chunk, index);
    let mut buf = Vec::new();
    seed::with_bytes(
        seed,
        &domain(kind, target.name),
        case_index(chunk, index),
        &mut buf,
        |u| gen.valid_case(u, name.clone()).ok(),
    )
}

/// The rule id prefixes a peer family reads: mutants of other rules are
/// not comparable for it.
pub fn reads(family: &str) -> &'static [&'static str] {
    match family {
        "llvm-readobj" => &["elf.", "note.", "metadata."],
        "llvm-objdump" => &["elf.", "kd.", "symbol."],
        "comgr" => &["elf.", "note.", "metadata.", "symbol."],
        _ => &[],
    }
}

/// Mutators of error rules some peer reads, in catalogue order.
pub(crate) fn useful_mutators() -> Vec<&'static Mutator> {
    let all: Vec<&str> = ["llvm-readobj", "llvm-objdump", "comgr"]
        .iter()
        .flat_map(|f| reads(f).iter().copied())
        .collect();
    mutate::mutators()
        .iter()
        .filter(|m| all.iter().any(|p| m.rule.id.starts_with(p)))
        .filter(|m| m.rule.severity == Severity::Error)
        .collect()
}

/// The mutant at these coordinates (case `index` of chunk `chunk` of the
/// domain `mutants.CPU`): valid base cases drawn one after another from
/// the case's stream until a mutator applies. The mutators are those of
/// error rules some peer reads ([`reads`]), the first
/// tried drawn, then the next ones in order.
pub fn mutant(target: &Target, seed: u64, chunk: u64, index: u64) -> Option<Case> {
    let cfg = Config {
        targets: vec![target.name.to_owned()],
        ..Config::default()
    };
    let gen = Generator::new(&cfg);
    let ms = useful_mutators();
    if ms.is_empty() {
        return None;
    }
    let mut buf = Vec::new();
    seed::with_bytes(
        seed,
        &domain(ComparisonId::Mutants, target.name),
        case_index(chunk, index),
        &mut buf,
        |u| {
            // A few bases: some mutators need two kernels or an argument.
            for _ in 0..4 {
                let Ok(base) = gen.valid_case(u, String::new()) else {
                    continue;
                };
                let start = u.choose_index(ms.len()).unwrap_or(0);
                for k in 0..ms.len() {
                    if let Some(c) = ms[(start + k) % ms.len()].apply(&base, u) {
                        return Some(c);
                    }
                }
            }
            None
        },
    )
}

/// `mutants.CPU.SEED.INDEX@RULE.hsaco`, for case `index` of chunk `chunk`.
pub fn mutant_name(cpu: &str, seed: u64, chunk: u64, index: u64, rule: &str) -> String {
    let i = case_index(chunk, index);
    format!(
        "{}.{seed}.{i}@{rule}.hsaco",
        domain(ComparisonId::Mutants, cpu)
    )
}

/// The mutant `name` (`mutants.CPU.SEED.INDEX@RULE.hsaco`) stands for, made
/// again; `None` when the name is not such a name or the mutant made again
/// breaks another rule.
fn mutant_of(name: &str) -> Option<Case> {
    let (stem, rule) = name.strip_suffix(".hsaco")?.split_once('@')?;
    let mut it = stem.split('.');
    let (kind, cpu, seed, index) = (
        it.next()?,
        it.next()?,
        it.next()?.parse::<u64>().ok()?,
        it.next()?.parse::<u64>().ok()?,
    );
    if kind != ComparisonId::Mutants.as_str() || it.next().is_some() {
        return None;
    }
    let c = mutant(targets::by_name(cpu)?, seed, 0, index)?;
    (c.expect.as_str() == rule).then(|| Case {
        id: name.to_owned(),
        seed: Some(seed),
        ..c
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_names_make_the_same_case_again() {
        let t = targets::by_name("gfx90a").expect("gfx90a");
        let cfg = config(ComparisonId::Descriptors, t);
        // Case 2 of chunk 3 is case 14 of the domain.
        let c =
            generate(&Generator::new(&cfg), ComparisonId::Descriptors, t, 7, 3, 2).expect("a case");
        assert_eq!(c.id, "descriptors.gfx90a.7.14.hsaco");
        // The case's bytes are those of (seed 7, domain, index 14), read
        // the way `gen` reads its own cases.
        let mut buf = Vec::new();
        let direct = seed::with_bytes(7, "descriptors.gfx90a", 14, &mut buf, |u| {
            Generator::new(&cfg).valid_case(u, c.id.clone())
        })
        .expect("a case");
        assert_eq!(direct.elf, c.elf);
        let again = case_of(&c.id).expect("made again");
        assert_eq!(again.elf, c.elf);
        assert!(c.code_object_version >= 3);
    }

    #[test]
    fn shrink_candidates_are_edited_cases_made_again_from_their_names() {
        for e in [
            Edit::DropKernel(3),
            Edit::Code(0),
            Edit::Args(1),
            Edit::Optional(2),
            Edit::Printf,
        ] {
            assert_eq!(Edit::parse(&e.token()), Some(e));
        }
        assert_eq!(Edit::parse("x1"), None);
        // The first case of seed 1 on gfx1010 with two kernels.
        let (stem, case) = (0..64)
            .map(|i| format!("descriptors.gfx1010.1.{i}"))
            .find_map(|stem| {
                let c = case_of(&format!("{stem}.hsaco")).expect("case");
                (c.object.kernels.len() == 2).then_some((stem, c))
            })
            .expect("a case with two kernels");
        let name = format!("{stem}.hsaco");
        let c = shrink_object(&Input::File {
            name: name.clone(),
            bytes: case.elf.clone(),
        });
        let names: Vec<&str> = c
            .iter()
            .map(|i| match i {
                Input::File { name, .. } => name.as_str(),
                _ => "",
            })
            .collect();
        assert_eq!(
            names[..2],
            [format!("{stem}.d0.hsaco"), format!("{stem}.d1.hsaco")]
        );
        for i in &c {
            let Input::File { name, bytes } = i else {
                panic!("{i:?}")
            };
            let again = case_of(name).expect("made again");
            assert_eq!(&again.elf, bytes, "{name}");
            assert!(bytes.len() <= case.elf.len(), "{name}");
        }
        // One kernel left: no kernel is dropped any more, and an edit that
        // changes nothing names no case.
        let one = case_of(&format!("{stem}.d0.hsaco")).expect("case");
        assert_eq!(one.object.kernels.len(), 1);
        assert!(case_of(&format!("{stem}.d0_d0.hsaco")).is_none());
    }
}
