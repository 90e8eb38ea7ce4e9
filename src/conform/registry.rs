//! The one place that builds comparisons, peers and worker tasks:
//! [`generated`] and [`given`] make the [`Comparison`] of a
//! [`ComparisonId`], [`peers`] makes the peers of a discovery
//! ([`crate::peers::discover`], the one finder of tools and libraries),
//! and [`worker_task`] the in-process side of a peer in a worker.

use std::sync::Arc;

use super::comgr;
use super::comgr::ComgrPeer;
use super::given::{GivenCmp, GivenSet, Inapplicable};
use super::llvm::{self, LibLlvm, LlvmMc};
use super::mutants::MutantsCmp;
use super::objdump::ObjdumpPeer;
use super::object_cmp::ObjectCmp;
use super::readobj::ReadobjPeer;
use super::reassembly::ReassemblePeer;
use super::rebuild::RebuildPeer;
use super::smem::{SmemDisasm, SmemEncode};
use super::{isolate, Comparison, ComparisonId, Peer};
use crate::peers::discover::{self, Discovery, Kind};
use crate::peers::llvm_disasm::LibInfo;

/// What the generated comparisons draw their inputs from.
#[derive(Clone, Copy, Debug)]
pub struct Generated {
    /// The seed.
    pub seed: u64,
    /// SMEM words per processor (`smem-disasm`; a quarter for
    /// `smem-encode`).
    pub count: u64,
    /// Objects per processor (the object comparisons and `mutants`).
    pub objects: u64,
}

/// The comparison `id` over generated inputs. `words` has no generated
/// inputs: it is made from given lines ([`super::words::WordsCmp`]); asked
/// for here, it makes `smem-disasm`.
pub fn generated(id: ComparisonId, g: &Generated) -> Box<dyn Comparison> {
    match id {
        ComparisonId::Rebuild
        | ComparisonId::Descriptors
        | ComparisonId::Metadata
        | ComparisonId::ComgrMetadata => Box::new(ObjectCmp::new(id, g.seed, g.objects)),
        ComparisonId::Mutants => Box::new(MutantsCmp::new(g.seed, g.objects)),
        ComparisonId::SmemEncode => Box::new(SmemEncode::generated(g.seed, g.count / 4)),
        ComparisonId::SmemDisasm | ComparisonId::Words => {
            Box::new(SmemDisasm::generated(g.seed, g.count))
        }
    }
}

/// The comparison `id` over the given objects of `set`, or, for an id that
/// does not read given objects, one listed as not applicable (with
/// [`ComparisonId::not_for_given`]'s reason).
pub fn given(id: ComparisonId, set: &Arc<GivenSet>) -> Box<dyn Comparison> {
    match id.not_for_given() {
        Some(why) => Box::new(Inapplicable::new(id, why)),
        None => Box::new(GivenCmp::new(id, Arc::clone(set))),
    }
}

/// The usable, versioned peers of one kind and name, newest first (in
/// discovery order within a version).
pub fn usable<'a>(d: &'a Discovery, kind: Kind, name: &str) -> Vec<&'a discover::Peer> {
    let mut v: Vec<&discover::Peer> = d
        .peers
        .iter()
        .filter(|p| {
            p.kind == kind && p.name == name && p.status.is_usable() && p.llvm_major.is_some()
        })
        .collect();
    v.sort_by_key(|p| std::cmp::Reverse(p.llvm_major));
    v
}

/// The peers of a discovery, each under its discovery id (composites join
/// ids with `+`): the instruction-level ones (libLLVM libraries, then
/// `llvm-mc` programs, newest first) and, with `objects`, the object-level
/// ones ([`object_peers`]).
pub fn peers(d: &Discovery, objects: bool) -> Vec<Box<dyn Peer>> {
    let mut peers: Vec<Box<dyn Peer>> = Vec::new();
    for p in usable(d, Kind::Library, "libLLVM") {
        if let Some(version) = p.llvm_major {
            let info = LibInfo {
                version,
                path: p.path.clone(),
            };
            peers.push(Box::new(LibLlvm::new(info, &p.id, p.named.clone())));
        }
    }
    for p in usable(d, Kind::Tool, "llvm-mc") {
        if let Some(version) = p.llvm_major {
            peers.push(Box::new(LlvmMc::new(version, p.path.clone(), &p.id)));
        }
    }
    if objects {
        peers.extend(object_peers(d));
    }
    peers
}

/// The object-level peers of a discovery, newest LLVM first: `llvm-mc` +
/// `ld.lld` rebuilds (the linker of the assembler's own named folder, else
/// the newest), `llvm-readobj`, `llvm-objdump`, `llvm-objdump` + `llvm-mc`
/// of one version (the same named folder's first), and comgr.
pub fn object_peers(d: &Discovery) -> Vec<Box<dyn Peer>> {
    let tools = |name| usable(d, Kind::Tool, name);
    let (mcs, lds) = (tools("llvm-mc"), tools("ld.lld"));
    // An llvm-mc of `version`, the same named folder's first.
    let mc_for = |version: Option<u32>, named: &Option<discover::Named>| {
        mcs.iter()
            .find(|m| m.llvm_major == version && m.named.is_some() && m.named == *named)
            .or_else(|| mcs.iter().find(|m| m.llvm_major == version))
            .copied()
    };
    let mut peers: Vec<Box<dyn Peer>> = Vec::new();
    for mc in &mcs {
        let lld = lds
            .iter()
            .find(|l| l.named.is_some() && l.named == mc.named)
            .or_else(|| lds.first());
        if let (Some(lld), Some(version)) = (lld, mc.llvm_major) {
            peers.push(Box::new(RebuildPeer::new(version, mc, lld)));
        }
    }
    for r in tools("llvm-readobj") {
        if let Some(version) = r.llvm_major {
            peers.push(Box::new(ReadobjPeer::new(version, r.path.clone(), &r.id)));
        }
    }
    let objdumps = tools("llvm-objdump");
    for o in &objdumps {
        if let Some(version) = o.llvm_major {
            let mc = mc_for(o.llvm_major, &o.named).map(|m| m.path.clone());
            peers.push(Box::new(ObjdumpPeer::new(version, o, mc)));
        }
    }
    for o in &objdumps {
        if let (Some(version), Some(mc)) = (o.llvm_major, mc_for(o.llvm_major, &o.named)) {
            peers.push(Box::new(ReassemblePeer::new(version, o, mc)));
        }
    }
    peers.extend(
        d.peers
            .iter()
            .filter_map(ComgrPeer::of)
            .map(|c| Box::new(c) as Box<dyn Peer>),
    );
    peers
}

/// The worker task named `name` (the hidden `worker --task NAME --arg ARG`
/// subcommand): `libllvm-disasm` (LLVM's disassembler in this process;
/// ARG is `MAJOR@PATH`, the library's LLVM major version and path), `comgr`
/// (comgr reading code objects: [`comgr::ComgrTask`]; ARG is the
/// library's path, or empty for the one installed) and `selftest` (for
/// the isolation tests: payloads `echo:TEXT`, `nc:REASON`, `abort`,
/// `exit:N`, `hang`).
pub fn worker_task(name: &str, arg: &str) -> Result<Box<dyn isolate::Task>, String> {
    match name {
        "libllvm-disasm" => {
            let info = arg
                .split_once('@')
                .and_then(|(v, p)| {
                    Some(LibInfo {
                        version: v.parse().ok()?,
                        path: std::path::PathBuf::from(p),
                    })
                })
                .ok_or_else(|| format!("libllvm-disasm: {arg:?} is not MAJOR@PATH"))?;
            Ok(Box::new(llvm::DisasmTask::new(info)))
        }
        comgr::TASK => Ok(Box::new(comgr::ComgrTask::new(
            (!arg.is_empty()).then(|| std::path::PathBuf::from(arg)),
        ))),
        "selftest" => Ok(Box::new(isolate::SelfTest)),
        crate::replay::worker::TASK => Ok(crate::replay::worker_task(arg)),
        _ => Err(format!("unknown worker task {name:?}")),
    }
}
