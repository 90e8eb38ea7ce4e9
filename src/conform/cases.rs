//! Generated object cases of the object-level comparisons: how a case is
//! drawn from the seed, the name that makes it again, and the model-level
//! edits the reducer applies ([`Edit`]).
//!
//! A case name is `KIND.CPU.SEED.CHUNK.INDEX[.EDITS].hsaco`; everything it
//! holds is a function of that name only.

use hsaco_gen::arbitrary::Unstructured;
use hsaco_gen::{Case, CodeObject, Config, Generator};
use hsaco_oracle::targets::{self, Target};

use super::objects::{DESCRIPTORS, REBUILD};
use super::Input;

/// Objects per unit of work.
pub(crate) const PER_CHUNK: u64 = 4;
/// Bytes of the seeded stream one case is drawn from.
pub(crate) const CASE_BYTES: usize = 4096;

// ------------------------------------------------------------- generation

fn name_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `len` bytes of the splitmix64 stream of `seed`.
fn stream(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        out.extend_from_slice(&mix(x).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The file name that names a generated case:
/// `KIND.CPU.SEED.CHUNK.INDEX.hsaco` (processor names hold no dots).
pub(crate) fn case_name(kind: &str, cpu: &str, seed: u64, chunk: u64, index: u64) -> String {
    format!("{kind}.{cpu}.{seed}.{chunk}.{index}.hsaco")
}

/// The generator configuration of a comparison on one processor.
pub(crate) fn config(kind: &str, target: &Target) -> Config {
    let mut cfg = Config {
        targets: vec![target.name.to_owned()],
        ..Config::default()
    };
    if kind == REBUILD {
        cfg.rebuildable_only = true;
    } else if kind == DESCRIPTORS || kind == super::objects_meta::METADATA {
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
    kind: &'a str,
    cpu: &'a str,
    seed: u64,
    chunk: u64,
    index: u64,
    edits: Vec<Edit>,
}

pub(crate) fn parse_name(name: &str) -> Option<CaseName<'_>> {
    let stem = name.strip_suffix(".hsaco")?;
    let mut it = stem.split('.');
    let (kind, cpu, seed, chunk, index) = (
        it.next()?,
        it.next()?,
        it.next()?.parse::<u64>().ok()?,
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
        chunk,
        index,
        edits,
    })
}

pub(crate) fn edited_name(n: &CaseName<'_>, edits: &[Edit]) -> String {
    let base = case_name(n.kind, n.cpu, n.seed, n.chunk, n.index);
    if edits.is_empty() {
        return base;
    }
    let stem = base.strip_suffix(".hsaco").unwrap_or(&base);
    let tokens: Vec<String> = edits.iter().map(|e| e.token()).collect();
    format!("{stem}.{}.hsaco", tokens.join("_"))
}

/// The case `name` (`KIND.CPU.SEED.CHUNK.INDEX[.EDITS].hsaco`, see the
/// module docs) stands for, made again.
pub fn case_of(name: &str) -> Option<Case> {
    let n = parse_name(name)?;
    let target = targets::by_name(n.cpu)?;
    let cfg = config(n.kind, target);
    let case = generate(
        &Generator::new(&cfg),
        n.kind,
        target,
        n.seed,
        n.chunk,
        n.index,
    )?;
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

pub(crate) fn generate(
    gen: &Generator<'_>,
    kind: &str,
    target: &Target,
    seed: u64,
    chunk: u64,
    index: u64,
) -> Option<Case> {
    let s = mix(seed ^ mix(name_hash(kind) ^ mix(name_hash(target.name))))
        ^ mix(chunk.wrapping_mul(PER_CHUNK).wrapping_add(index));
    let bytes = stream(s, CASE_BYTES);
    let mut u = Unstructured::new(&bytes);
    let name = case_name(kind, target.name, seed, chunk, index);
    gen.valid_case(&mut u, name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_names_make_the_same_case_again() {
        let t = targets::by_name("gfx90a").expect("gfx90a");
        let cfg = config(DESCRIPTORS, t);
        let c = generate(&Generator::new(&cfg), DESCRIPTORS, t, 7, 3, 2).expect("a case");
        assert_eq!(c.id, "descriptors.gfx90a.7.3.2.hsaco");
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
        // descriptors.gfx1010.1.0.0 has two kernels.
        let name = "descriptors.gfx1010.1.0.0.hsaco";
        let case = case_of(name).expect("case");
        assert_eq!(case.object.kernels.len(), 2);
        let c = shrink_object(&Input::File {
            name: name.to_owned(),
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
            [
                "descriptors.gfx1010.1.0.0.d0.hsaco",
                "descriptors.gfx1010.1.0.0.d1.hsaco"
            ]
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
        let one = case_of("descriptors.gfx1010.1.0.0.d0.hsaco").expect("case");
        assert_eq!(one.object.kernels.len(), 1);
        assert!(case_of("descriptors.gfx1010.1.0.0.d0_d0.hsaco").is_none());
    }
}
