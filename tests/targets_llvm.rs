//! Checks the oracle's target tables against every installed LLVM.
//!
//! - For each installed LLVM (14, 15, 16, 19, 22): the processors its
//!   `llc -mcpu=help` lists against the releases the table records for each
//!   processor (`Target::llvm_first`, `llvm_removed`, the aliases and the
//!   unmodelled newer processors), and one `llc` object per listed name,
//!   read back with that release's `llvm-readobj --file-headers`: mach,
//!   xnack/sramecc support and settings, generic version and code object
//!   version must be what the table predicts, LLVM must refuse a feature
//!   exactly where the table does, and the oracle must check the object
//!   with no error or warning.
//! - For every HSA processor LLVM 19 knows (the retired gfx940/gfx941
//!   included), one `clang-19` compile of a two-kernel OpenCL file: the ELF
//!   `e_flags` (mach, xnack/sramecc fields, generic version), the kernel
//!   descriptors (wave32 default and wave64 on request, architected flat
//!   scratch, the SGPR init bugs) and the `amdhsa.target` metadata string
//!   must match the table, and that string must parse and print back
//!   identically.
//! - gfx940/gfx941 objects from `clang-19` (V4 and V5, xnack/sramecc
//!   settings) are clean but for the one info that later LLVM retired them.
//! - Target IDs with explicit features through `clang-19`, and the V2/V3
//!   spelling and `e_flags` of LLVM 14 through `llc-14`.
//!
//! Each test collects every mismatch and fails once with the full list.

mod support;

use hsaco_oracle::check::check_object;
use hsaco_oracle::targets::{
    self, CodeObjectVersion, Feature, FeatureSetting, Generation, Target, TargetId, TRIPLE_PREFIX,
};
use hsaco_oracle::{Severity, Violation};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use support::llc::cpu_list;

/// One kernel with the default wave size and one forced to wave64.
const KERNELS: &str = "\
kernel void k(global int *p) { p[get_global_id(0)] = 1; }
__attribute__((target(\"wavefrontsize64\"))) kernel void k64(global int *p) { p[get_global_id(0)] = 2; }
";

fn fail_with(what: &str, mismatches: &[String]) {
    if !mismatches.is_empty() {
        panic!(
            "{what}: {} mismatches:\n  {}",
            mismatches.len(),
            mismatches.join("\n  ")
        );
    }
}

/// Runs `f` over `items` on a few threads and concatenates the results.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> Vec<R> + Sync) -> Vec<R> {
    let n = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    let chunk = items.len().div_ceil(n).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(|| c.iter().flat_map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker thread panicked"))
            .collect()
    })
}

/// The few ELF facts the checks need, read without the oracle's parser so
/// that a bug there cannot hide a table mismatch.
struct Object {
    abi_version: u8,
    e_flags: u32,
    bytes: Vec<u8>,
    sections: Vec<(u32, u64, u64)>, // (sh_type, sh_offset, sh_size)
    sh_links: Vec<u32>,
}

fn u16_at(d: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes(d.get(o..o + 2)?.try_into().ok()?))
}
fn u32_at(d: &[u8], o: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(o..o + 4)?.try_into().ok()?))
}
fn u64_at(d: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(d.get(o..o + 8)?.try_into().ok()?))
}

impl Object {
    fn read(path: &Path) -> Option<Object> {
        let bytes = std::fs::read(path).ok()?;
        let shoff = u64_at(&bytes, 0x28)? as usize;
        let shnum = u16_at(&bytes, 0x3c)? as usize;
        let mut sections = Vec::new();
        let mut sh_links = Vec::new();
        for i in 0..shnum {
            let h = shoff + i * 64;
            sections.push((
                u32_at(&bytes, h + 4)?,
                u64_at(&bytes, h + 24)?,
                u64_at(&bytes, h + 32)?,
            ));
            sh_links.push(u32_at(&bytes, h + 40)?);
        }
        Some(Object {
            abi_version: *bytes.get(8)?,
            e_flags: u32_at(&bytes, 0x30)?,
            bytes,
            sections,
            sh_links,
        })
    }

    /// The 64 bytes of kernel descriptor symbol `name` (a relocatable
    /// object: `st_value` is the offset in its section).
    fn kernel_descriptor(&self, name: &str) -> Option<&[u8]> {
        let symtab = self.sections.iter().position(|s| s.0 == 2)?;
        let (_, sym_off, sym_size) = self.sections[symtab];
        let (_, str_off, _) = *self.sections.get(*self.sh_links.get(symtab)? as usize)?;
        for i in 0..(sym_size / 24) as usize {
            let e = sym_off as usize + i * 24;
            let name_off = str_off as usize + u32_at(&self.bytes, e)? as usize;
            let rest = self.bytes.get(name_off..)?;
            let end = rest.iter().position(|&b| b == 0)?;
            if &rest[..end] != name.as_bytes() {
                continue;
            }
            let shndx = u16_at(&self.bytes, e + 6)? as usize;
            let value = u64_at(&self.bytes, e + 8)? as usize;
            let (_, sec_off, _) = *self.sections.get(shndx)?;
            let start = sec_off as usize + value;
            return self.bytes.get(start..start + 64);
        }
        None
    }
}

/// Descriptor fields the table predicts.
struct Kd {
    rsrc3: u32,
    rsrc1: u32,
    rsrc2: u32,
    properties: u16,
}

impl Kd {
    fn parse(b: &[u8]) -> Option<Kd> {
        Some(Kd {
            rsrc3: u32_at(b, 44)?,
            rsrc1: u32_at(b, 48)?,
            rsrc2: u32_at(b, 52)?,
            properties: u16_at(b, 56)?,
        })
    }
    fn wave32(&self) -> bool {
        self.properties & (1 << 10) != 0
    }
    fn granulated_sgprs(&self) -> u32 {
        (self.rsrc1 >> 6) & 0xf
    }
    fn user_sgpr_count(&self) -> u32 {
        (self.rsrc2 >> 1) & 0x1f
    }
    /// User SGPRs selected by the kernel_code_properties enable bits.
    fn enabled_user_sgprs(&self) -> u32 {
        [4, 2, 2, 2, 2, 2, 1]
            .iter()
            .enumerate()
            .filter(|(bit, _)| self.properties & (1 << bit) != 0)
            .map(|(_, n)| n)
            .sum()
    }
    /// System SGPRs enabled in rsrc2: work-group IDs X/Y/Z (bits 7-9),
    /// work-group info (bit 10) and the private segment wave offset
    /// (bit 0), which with architected flat scratch enables the private
    /// segment without taking an SGPR.
    fn system_sgprs(&self, architected_flat_scratch: bool) -> u32 {
        let wave_offset = u32::from(self.rsrc2 & 1 != 0 && !architected_flat_scratch);
        wave_offset
            + [7, 8, 9, 10]
                .iter()
                .filter(|&&b| self.rsrc2 & (1 << b) != 0)
                .count() as u32
    }
}

/// The `amdhsa.target` value `llvm-readobj-19 --notes` prints.
fn metadata_target(readobj: &Path, obj: &Path) -> Option<String> {
    let out = Command::new(readobj)
        .arg("--notes")
        .arg(obj)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.trim().strip_prefix("amdhsa.target:"))
        .map(|v| v.trim().trim_matches(|c| c == '\'' || c == '"').to_owned())
}

fn cov_for(t: &Target) -> (CodeObjectVersion, &'static str) {
    if t.is_generic {
        (CodeObjectVersion::V6, "6")
    } else {
        (CodeObjectVersion::V5, "5")
    }
}

fn compile(clang: &Path, dir: &Path, mcpu: &str, cov: &str, file: &str) -> Result<PathBuf, String> {
    let src = dir.join("k.cl");
    let obj = dir.join(format!("{file}.o"));
    let out = Command::new(clang)
        .args(["-x", "cl", "-target", "amdgcn-amd-amdhsa", "-nogpulib"])
        .arg(format!("-mcpu={mcpu}"))
        .arg(format!("-mcode-object-version={cov}"))
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .map_err(|e| format!("could not run clang-19: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "clang-19 failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(obj)
}

fn check_target(clang: &Path, readobj: &Path, dir: &Path, t: &'static Target) -> Vec<String> {
    let mut bad = Vec::new();
    let (cov, cov_arg) = cov_for(t);
    let obj = match compile(clang, dir, t.name, cov_arg, t.name) {
        Ok(o) => o,
        Err(e) => return vec![format!("{}: {e}", t.name)],
    };
    let Some(o) = Object::read(&obj) else {
        return vec![format!("{}: unreadable ELF", t.name)];
    };
    macro_rules! m {
        ($msg:expr) => {
            bad.push(format!("{}: {}", t.name, $msg))
        };
    }

    if o.abi_version != cov.abi_version() {
        m!(format!(
            "EI_ABIVERSION {} but asked for {cov}",
            o.abi_version
        ));
    }
    if o.e_flags & 0xff != u32::from(t.mach) {
        m!(format!(
            "mach {:#04x}, table {:#04x}",
            o.e_flags & 0xff,
            t.mach
        ));
    }
    let x = FeatureSetting::from_field(o.e_flags >> 8);
    let s = FeatureSetting::from_field(o.e_flags >> 10);
    let expect = |supported: bool| {
        if supported {
            FeatureSetting::Any
        } else {
            FeatureSetting::Unsupported
        }
    };
    if x != expect(t.xnack) {
        m!(format!("xnack field {x}, table xnack={}", t.xnack));
    }
    if s != expect(t.sramecc) {
        m!(format!("sramecc field {s}, table sramecc={}", t.sramecc));
    }
    match TargetId::from_e_flags(o.e_flags, cov) {
        Ok(id) if id == TargetId::any(t) => {}
        other => m!(format!("from_e_flags({:#x}) = {other:?}", o.e_flags)),
    }
    let want_generic_version = if t.is_generic { 1 } else { 0 };
    if targets::generic_version(o.e_flags) != want_generic_version {
        m!(format!(
            "generic version {}",
            targets::generic_version(o.e_flags)
        ));
    }
    if TargetId::any(t).to_e_flags(cov) | u32::from(want_generic_version) << 24 != o.e_flags {
        m!(format!(
            "to_e_flags gives {:#x}, clang wrote {:#x}",
            TargetId::any(t).to_e_flags(cov),
            o.e_flags
        ));
    }

    match metadata_target(readobj, &obj) {
        None => m!("no amdhsa.target in the metadata"),
        Some(text) => {
            let want = format!("{TRIPLE_PREFIX}{}", t.name);
            if text != want {
                m!(format!("amdhsa.target `{text}`, expected `{want}`"));
            }
            match TargetId::parse(&text) {
                Ok(id) if id.to_full_string() == text && id == TargetId::any(t) => {}
                other => m!(format!("amdhsa.target `{text}` parses to {other:?}")),
            }
        }
    }

    let (Some(k), Some(k64)) = (
        o.kernel_descriptor("k.kd").and_then(Kd::parse),
        o.kernel_descriptor("k64.kd").and_then(Kd::parse),
    ) else {
        m!("kernel descriptors k.kd / k64.kd not found");
        return bad;
    };
    // clang defaults to wave32 where it exists; wave64 always works.
    if k.wave32() != t.wave32 {
        m!(format!(
            "default kernel wave32={}, table wave32={}",
            k.wave32(),
            t.wave32
        ));
    }
    if k64.wave32() || !t.wave64 {
        m!(format!(
            "wavefrontsize64 kernel has wave32={}, table wave64={}",
            k64.wave32(),
            t.wave64
        ));
    }
    for (kname, kd) in [("k", &k), ("k64", &k64)] {
        // Architected flat scratch removes the private segment buffer
        // (bit 0) and flat scratch init (bit 5) user SGPRs; LLVM 19 enables
        // the private segment buffer for every other kernel.
        let psb = kd.properties & 1 != 0;
        let fsi = kd.properties & (1 << 5) != 0;
        if psb == t.architected_flat_scratch || (fsi && t.architected_flat_scratch) {
            m!(format!(
                "{kname}: private segment buffer {psb}, flat scratch init {fsi}, table architected_flat_scratch={}",
                t.architected_flat_scratch
            ));
        }
        let granulated = kd.granulated_sgprs();
        if t.sgpr_init_bug != (granulated == 11 && t.generation == Generation::Gfx8) {
            m!(format!(
                "{kname}: GRANULATED_WAVEFRONT_SGPR_COUNT {granulated}, table sgpr_init_bug={}",
                t.sgpr_init_bug
            ));
        }
        let enabled = kd.enabled_user_sgprs();
        let count = kd.user_sgpr_count();
        let padded = t.user_sgpr_init16_bug && kd.wave32();
        let want = if padded {
            enabled.max(16 - kd.system_sgprs(t.architected_flat_scratch))
        } else {
            enabled
        };
        if count != want {
            m!(format!(
                "{kname}: USER_SGPR_COUNT {count}, enable bits select {enabled}, system SGPRs {}, table init16 bug={}",
                kd.system_sgprs(t.architected_flat_scratch),
                t.user_sgpr_init16_bug
            ));
        }
        if count > u32::from(t.max_user_sgprs) {
            m!(format!(
                "{kname}: USER_SGPR_COUNT {count} above max_user_sgprs {}",
                t.max_user_sgprs
            ));
        }
        if t.generation <= Generation::Gfx9 && !t.accum_offset && kd.rsrc3 != 0 {
            m!(format!(
                "{kname}: compute_pgm_rsrc3 {:#x} on a target without rsrc3 fields",
                kd.rsrc3
            ));
        }
    }
    bad
}

#[test]
fn clang19_objects_agree_with_the_table() {
    let Some(clang) = support::require_tool("clang-19") else {
        return;
    };
    let Some(readobj) = support::require_tool("llvm-readobj-19") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("k.cl"), KERNELS).expect("write kernel source");
    let hsa: Vec<&'static Target> = targets::all_targets()
        .filter(|t| t.hsa && t.llvm19())
        .collect();
    assert!(hsa.len() >= 47, "only {} LLVM 19 targets", hsa.len());
    assert!(hsa.iter().any(|t| t.name == "gfx940") && hsa.iter().any(|t| t.name == "gfx941"));
    let mismatches = par_map(&hsa, |t| check_target(&clang, &readobj, dir.path(), t));
    fail_with("clang-19 vs target table", &mismatches);
}

#[test]
fn clang19_target_ids_with_features() {
    let Some(clang) = support::require_tool("clang-19") else {
        return;
    };
    let Some(readobj) = support::require_tool("llvm-readobj-19") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("k.cl"), KERNELS).expect("write kernel source");
    // Features in the "wrong" order on input: LLVM sorts them on output.
    let cases = [
        "gfx90a:xnack-:sramecc+",
        "gfx906:xnack+",
        "gfx908:sramecc-",
        "gfx942:xnack+:sramecc-",
        "gfx1010:xnack-",
        "gfx802",
        "gfx9-generic:xnack+",
        "gfx10-1-generic:xnack-",
    ];
    let mismatches = par_map(&cases, |&input| {
        let id = match TargetId::parse(input) {
            Ok(id) => id,
            Err(e) => return vec![format!("{input}: does not parse: {e}")],
        };
        let (cov, cov_arg) = cov_for(id.target);
        let file = input.replace(':', "_");
        let obj = match compile(&clang, dir.path(), input, cov_arg, &file) {
            Ok(o) => o,
            Err(e) => return vec![format!("{input}: {e}")],
        };
        let mut bad = Vec::new();
        match metadata_target(&readobj, &obj) {
            Some(text) if text == id.to_full_string() => {}
            other => bad.push(format!(
                "{input}: amdhsa.target {other:?}, expected {}",
                id.to_full_string()
            )),
        }
        match Object::read(&obj).map(|o| TargetId::from_e_flags(o.e_flags, cov)) {
            Some(Ok(got)) if got == id => {}
            other => bad.push(format!(
                "{input}: e_flags decode to {other:?}, expected {id:?}"
            )),
        }
        bad
    });
    fail_with("clang-19 target IDs", &mismatches);
}

#[test]
fn llc14_v2_v3_spelling_and_flags() {
    let Some(llc) = support::require_tool("llc-14") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let ir = dir.path().join("k.ll");
    std::fs::write(&ir, "define amdgpu_kernel void @k() {\n  ret void\n}\n").expect("write IR");
    // (processor, -mattr, the V3 target ID LLVM 14 is expected to write,
    // whether LLVM 14 can write V2 for it: V2 stops at gfx906)
    let cases = [
        ("gfx906", "", "gfx906+xnack+sram-ecc", true),
        ("gfx906", "-xnack", "gfx906+sram-ecc", true),
        ("gfx906", "-sramecc", "gfx906+xnack", true),
        ("gfx906", "-xnack,-sramecc", "gfx906", true),
        ("gfx902", "", "gfx902+xnack", true),
        ("gfx902", "-xnack", "gfx902", true),
        ("gfx803", "", "gfx803", true),
        ("gfx1010", "", "gfx1010+xnack", false),
        ("gfx90a", "-xnack", "gfx90a+sram-ecc", false),
    ];
    let mut bad = Vec::new();
    for (cpu, mattr, expected, v2) in cases {
        let id = match TargetId::parse_v3(expected) {
            Ok(id) => id,
            Err(e) => {
                bad.push(format!("{expected}: parse_v3 failed: {e}"));
                continue;
            }
        };
        if id.to_v3_string() != expected {
            bad.push(format!("{expected}: prints back as {}", id.to_v3_string()));
        }
        let versions: &[(CodeObjectVersion, &str)] = if v2 {
            &[(CodeObjectVersion::V3, "3"), (CodeObjectVersion::V2, "2")]
        } else {
            &[(CodeObjectVersion::V3, "3")]
        };
        for &(cov, ver) in versions {
            let llc_cmd = || {
                let mut cmd = Command::new(&llc);
                cmd.args(["-mtriple=amdgcn-amd-amdhsa", &format!("-mcpu={cpu}")])
                    .arg(format!("--amdhsa-code-object-version={ver}"))
                    .arg(&ir);
                if !mattr.is_empty() {
                    cmd.arg(format!("-mattr={mattr}"));
                }
                cmd
            };
            let asm = llc_cmd().arg("-o").arg("-").output();
            let Ok(asm) = asm else {
                bad.push(format!("{cpu} {mattr}: could not run llc-14"));
                continue;
            };
            let text = String::from_utf8_lossy(&asm.stdout);
            if cov == CodeObjectVersion::V3 {
                let want = format!(".amdgcn_target \"{TRIPLE_PREFIX}{expected}\"");
                if !text.contains(&want) {
                    bad.push(format!("{cpu} {mattr}: llc-14 V3 output lacks {want}"));
                }
            }
            let obj = dir
                .path()
                .join(format!("{cpu}{}_{ver}.o", mattr.replace(',', "")));
            let status = llc_cmd().arg("-filetype=obj").arg("-o").arg(&obj).status();
            if !status.is_ok_and(|s| s.success()) {
                bad.push(format!("{cpu} {mattr} V{ver}: llc-14 -filetype=obj failed"));
                continue;
            }
            match Object::read(&obj).map(|o| (o.e_flags, TargetId::from_e_flags(o.e_flags, cov))) {
                Some((flags, Ok(got))) if got == id && id.to_e_flags(cov) == flags => {}
                other => bad.push(format!(
                    "{cpu} {mattr} V{ver}: e_flags decode {other:?}, expected {id:?}"
                )),
            }
        }
    }
    fail_with("llc-14 V2/V3", &bad);
}

// ---------------------------------------------------------------------------
// Every installed LLVM against the tables.

/// The LLVM releases compared with the tables, each when installed.
const LLVM_VERSIONS: [u8; 5] = [14, 15, 16, 19, 22];

/// The releases `.ci/run` installs, which must be there under CI; the
/// others are compared where a machine has them and skipped with a printed
/// reason otherwise, in CI too.
const REQUIRED_LLVM: [u8; 2] = [14, 19];

/// `tool` if it is on PATH; a missing tool of a required release is
/// `support::require_tool`'s (fails under CI), any other a printed skip.
fn llvm_tool(v: u8, tool: &str) -> Option<std::path::PathBuf> {
    let name = format!("{tool}-{v}");
    if REQUIRED_LLVM.contains(&v) {
        return support::require_tool(&name);
    }
    let found = support::which(&name);
    if found.is_none() {
        eprintln!("SKIPPED: LLVM {v}: `{name}` is not installed");
    }
    found
}

/// Names `-mcpu=help` lists that are not processors: LLVM's test-only
/// models (GCNProcessors.td: code for "generic" "cannot reasonably be
/// expected to execute on any particular target"), for which LLVM writes
/// EF_AMDGPU_MACH_NONE and the oracle reports `elf.e_flags.mach`.
const NOT_PROCESSORS: [&str; 2] = ["generic", "generic-hsa"];

/// A kernel that reads both arguments and the work-item ID and stores to
/// global memory, so the descriptor has real SGPR and VGPR use.
const KERNEL_IR: &str = "\
define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %v) {
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %g = getelementptr i32, ptr addrspace(1) %p, i32 %id
  store i32 %v, ptr addrspace(1) %g
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
";

/// A kernel without memory access, for r600 and the [`NOT_PROCESSORS`]
/// (LLVM's `generic` model cannot select a global store).
const EMPTY_IR: &str = "define amdgpu_kernel void @k() {\n  ret void\n}\n";

/// A feature request on the `llc` command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    /// Not named: "any" where supported.
    Default,
    /// `+feature`.
    On,
    /// `-feature`.
    Off,
}

impl Request {
    const ALL: [Request; 3] = [Request::Default, Request::On, Request::Off];

    /// The setting a processor that supports the feature ends up with.
    fn setting(self) -> FeatureSetting {
        match self {
            Request::Default => FeatureSetting::Any,
            Request::On => FeatureSetting::On,
            Request::Off => FeatureSetting::Off,
        }
    }

    fn mattr(self, feature: Feature) -> Option<String> {
        match self {
            Request::Default => None,
            Request::On => Some(format!("+{}", feature.name())),
            Request::Off => Some(format!("-{}", feature.name())),
        }
    }
}

/// What the oracle makes of a name an LLVM lists.
#[derive(Debug, Clone, Copy)]
enum Named {
    /// A modelled processor, under its name or an alias.
    Modelled(&'static Target),
    /// A valid processor newer than the tables (name, mach).
    Unmodelled(&'static str, u8),
    /// One of [`NOT_PROCESSORS`].
    NotProcessor,
}

fn classify(name: &str) -> Option<Named> {
    if NOT_PROCESSORS.contains(&name) {
        return Some(Named::NotProcessor);
    }
    if let Some(t) = targets::by_name_or_alias(name) {
        return Some(Named::Modelled(t));
    }
    targets::UNMODELLED
        .iter()
        .find(|(_, n)| *n == name)
        .map(|&(m, n)| Named::Unmodelled(n, m))
}

/// The code object versions the differential test asks LLVM `v` for:
/// V4 and later, as each release writes them. LLVM 14 only V4: its V5 is
/// a pre-release (hidden arguments past `.kernarg_segment_size`, which the
/// oracle rightly reports); V6 from LLVM 19; generic processors only V6.
fn covs(v: u8, generic: bool) -> &'static [CodeObjectVersion] {
    use CodeObjectVersion::*;
    match (v, generic) {
        (_, true) => &[V6],
        (14, _) => &[V4],
        (15 | 16, _) => &[V4, V5],
        _ => &[V4, V5, V6],
    }
}

/// One `llc` run: a name an LLVM lists, with the code object version and
/// feature requests the rotation gave it.
struct Job {
    name: String,
    named: Named,
    r600: bool,
    cov: CodeObjectVersion,
    xnack: Request,
    sramecc: Request,
}

/// The jobs for one release: every listed name once. The version and the
/// feature requests rotate with the name's position, so that over a list
/// each version and each request meets many processors while each name
/// costs one process.
fn jobs(v: u8, amdgcn: &[String], r600: &[String]) -> (Vec<Job>, Vec<String>) {
    let mut bad = Vec::new();
    let mut out = Vec::new();
    for (i, name) in amdgcn.iter().enumerate() {
        let Some(named) = classify(name) else {
            bad.push(format!(
                "LLVM {v} lists amdgcn processor {name}, which the oracle does not know"
            ));
            continue;
        };
        let generic = match named {
            Named::Modelled(t) => t.is_generic,
            Named::Unmodelled(n, _) => n.ends_with("-generic"),
            Named::NotProcessor => false,
        };
        let c = covs(v, generic);
        let n = c.len();
        out.push(Job {
            name: name.clone(),
            named,
            r600: false,
            cov: c[i % n],
            xnack: Request::ALL[(i / n) % 3],
            sramecc: Request::ALL[(i / (3 * n)) % 3],
        });
    }
    for name in r600 {
        match targets::by_name(name) {
            Some(t) if !t.hsa => out.push(Job {
                name: name.clone(),
                named: Named::Modelled(t),
                r600: true,
                cov: CodeObjectVersion::V4,
                xnack: Request::Default,
                sramecc: Request::Default,
            }),
            _ => bad.push(format!(
                "LLVM {v} lists r600 processor {name}, which the oracle does not know as r600"
            )),
        }
    }
    (out, bad)
}

/// Every modelled processor (and amdgcn alias) the table says LLVM `v`
/// knows must be in its list, and every listed one must be known to `v`
/// by the table.
fn compare_lists(v: u8, amdgcn: &[String], r600: &[String]) -> Vec<String> {
    let mut bad = Vec::new();
    let range = |t: &Target| match t.llvm_removed {
        Some(r) => format!("LLVM {}-{}", t.llvm_first, r - 1),
        None => format!("LLVM {} on", t.llvm_first),
    };
    for t in targets::all_targets() {
        let list = if t.hsa { amdgcn } else { r600 };
        let listed = list.iter().any(|n| n == t.name);
        if listed != t.known_to_llvm(v) {
            bad.push(format!(
                "{}: the table says {} knows it, but LLVM {v} {} it",
                t.name,
                range(t),
                if listed { "lists" } else { "does not list" }
            ));
        }
    }
    for (alias, canonical) in targets::ALIASES {
        let Some(t) = targets::by_name(canonical).filter(|t| t.hsa) else {
            continue; // r600 aliases are clang driver names, not in llc's list
        };
        if amdgcn.iter().any(|n| n == alias) != t.known_to_llvm(v) {
            bad.push(format!(
                "alias {alias} of {canonical}: LLVM {v} disagrees with the table"
            ));
        }
    }
    bad
}

/// An `llc` run's object path and stderr, or why it failed.
type Built = Result<(PathBuf, String), String>;

/// Runs `llc-NN` for `job`; returns the object path and llc's stderr.
fn run_llc(llc: &Path, v: u8, dir: &Path, job: &Job) -> Built {
    let obj = dir.join(format!("{}.o", job.name));
    let ir = dir.join(match (job.r600, job.named) {
        (true, _) | (_, Named::NotProcessor) => "empty.ll",
        _ => "kernel.ll",
    });
    let mut cmd = Command::new(llc);
    if job.r600 {
        cmd.arg("-mtriple=r600");
    } else {
        cmd.arg("-mtriple=amdgcn-amd-amdhsa")
            .arg(format!("--amdhsa-code-object-version={}", job.cov.number()));
        if v == 14 {
            cmd.arg("-opaque-pointers");
        }
    }
    cmd.arg(format!("-mcpu={}", job.name));
    let mattr: Vec<String> = [
        job.xnack.mattr(Feature::Xnack),
        job.sramecc.mattr(Feature::Sramecc),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !mattr.is_empty() {
        cmd.arg(format!("-mattr={}", mattr.join(",")));
    }
    let out = cmd
        .arg("-filetype=obj")
        .arg(&ir)
        .arg("-o")
        .arg(&obj)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run llc-{v}: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        let last = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(format!("llc-{v} failed ({}): {last}", out.status));
    }
    Ok((obj, stderr))
}

/// `llvm-readobj --file-headers` over many files at once: path →
/// (EI_ABIVERSION, e_flags).
fn read_headers(readobj: &Path, files: &[&PathBuf]) -> BTreeMap<PathBuf, (u8, u32)> {
    let mut out = BTreeMap::new();
    if files.is_empty() {
        return out;
    }
    let Ok(o) = Command::new(readobj)
        .arg("--file-headers")
        .args(files)
        .stdin(Stdio::null())
        .output()
    else {
        return out;
    };
    let text = String::from_utf8_lossy(&o.stdout);
    let (mut file, mut abi) = (None, None);
    for line in text.lines().map(str::trim) {
        if let Some(f) = line.strip_prefix("File:") {
            file = Some(PathBuf::from(f.trim()));
            abi = None;
        } else if let Some(a) = line.strip_prefix("ABIVersion:") {
            abi = a.trim().parse::<u8>().ok();
        } else if let Some(f) = line.strip_prefix("Flags [ (") {
            let hex = f.trim_end_matches(')').trim_start_matches("0x");
            if let (Some(path), Some(a), Ok(flags)) =
                (file.take(), abi, u32::from_str_radix(hex, 16))
            {
                out.insert(path, (a, flags));
            }
        }
    }
    out
}

/// True if llc warned that `feature` was requested for a processor that
/// does not support it.
fn llvm_refused(stderr: &str, feature: Feature) -> bool {
    let tag = format!("{} '", feature.name());
    stderr
        .lines()
        .any(|l| l.contains(&tag) && l.contains("does not support it"))
}

/// Compares one object with the tables (and wants no error or warning of
/// any other rule either).
fn compare_object(
    v: u8,
    job: &Job,
    stderr: &str,
    bytes: &[u8],
    (abi, flags): (u8, u32),
) -> Vec<String> {
    let mut bad = Vec::new();
    let what = format!(
        "LLVM {v} {} ({}, xnack {:?}, sramecc {:?})",
        job.name, job.cov, job.xnack, job.sramecc
    );
    let mach = (flags & 0xff) as u8;
    let t = match job.named {
        Named::Modelled(t) if job.r600 => {
            if mach != t.mach {
                bad.push(format!("{what}: mach {mach:#04x}, table {:#04x}", t.mach));
            }
            return bad;
        }
        Named::Modelled(t) => t,
        Named::NotProcessor => {
            if mach != 0 {
                bad.push(format!("{what}: mach {mach:#04x}, expected 0 (none)"));
            }
            if !check_object(bytes)
                .violations
                .iter()
                .any(|x| x.rule.id == "elf.e_flags.mach")
            {
                bad.push(format!(
                    "{what}: the oracle does not report elf.e_flags.mach"
                ));
            }
            return bad;
        }
        Named::Unmodelled(name, m) => {
            if mach != m {
                bad.push(format!(
                    "{what}: mach {mach:#04x}, UNMODELLED says {name} is {m:#04x}"
                ));
            }
            for x in check_object(bytes).violations {
                if x.severity >= Severity::Warning && x.rule.id != "elf.e_flags.mach_unmodelled" {
                    bad.push(format!(
                        "{what}: {} {}: {}",
                        x.severity, x.rule.id, x.message
                    ));
                }
            }
            return bad;
        }
    };
    if abi != job.cov.abi_version() {
        bad.push(format!("{what}: EI_ABIVERSION {abi}"));
    }
    let setting = |f: Feature, r: Request| {
        if t.supports(f) {
            r.setting()
        } else {
            FeatureSetting::Unsupported
        }
    };
    let id = match TargetId::new(
        t,
        setting(Feature::Xnack, job.xnack),
        setting(Feature::Sramecc, job.sramecc),
    ) {
        Ok(id) => id,
        Err(e) => return vec![format!("{what}: {e}")],
    };
    let generic_version = u32::from(t.is_generic && job.cov >= CodeObjectVersion::V6);
    let want = id.to_e_flags(job.cov) | generic_version << 24;
    if flags != want {
        bad.push(format!(
            "{what}: e_flags {flags:#x}, the table predicts {want:#x} ({id})"
        ));
    }
    match TargetId::from_e_flags(flags, job.cov) {
        Ok(got) if got == id => {}
        other => bad.push(format!("{what}: from_e_flags({flags:#x}) = {other:?}")),
    }
    for (f, r) in [(Feature::Xnack, job.xnack), (Feature::Sramecc, job.sramecc)] {
        let refused = llvm_refused(stderr, f);
        let expected = r != Request::Default && !t.supports(f);
        if refused != expected {
            bad.push(format!(
                "{what}: LLVM {} {f} but the table says {} {}",
                if refused { "refused" } else { "accepted" },
                t.name,
                if t.supports(f) { "has it" } else { "lacks it" }
            ));
        }
        // The oracle refuses the target ID LLVM refused.
        if r == Request::On {
            let text = format!("{}:{f}+", t.name);
            let parsed = TargetId::parse(&text);
            if parsed.is_ok() == refused {
                let got = parsed.map_or_else(|e| e.to_string(), |i| i.to_string());
                bad.push(format!("{what}: the oracle parses {text} as {got}"));
            }
        }
    }
    let report = check_object(bytes);
    if report.target.as_deref() != Some(id.to_v4_string().as_str()) {
        bad.push(format!(
            "{what}: the oracle sees target {:?}",
            report.target
        ));
    }
    let retired_info = report
        .violations
        .iter()
        .any(|x| x.rule.id == "elf.e_flags.mach_retired");
    if retired_info != t.is_retired() {
        bad.push(format!(
            "{what}: elf.e_flags.mach_retired reported: {retired_info}"
        ));
    }
    for x in &report.violations {
        if x.severity < Severity::Warning {
            continue;
        }
        bad.push(describe(&what, x));
    }
    bad
}

fn describe(what: &str, x: &Violation) -> String {
    format!("{what}: {} {}: {}", x.severity, x.rule.id, x.message)
}

/// Everything one installed LLVM says about processors, against the tables.
fn check_llvm_version(v: u8) -> Option<Vec<String>> {
    let llc = llvm_tool(v, "llc")?;
    let readobj = llvm_tool(v, "llvm-readobj")?;
    let (amdgcn, r600) = match (cpu_list(&llc, "amdgcn"), cpu_list(&llc, "r600")) {
        (Ok(a), Ok(r)) => (a, r),
        (Err(e), _) | (_, Err(e)) => return Some(vec![e]),
    };
    let mut bad = compare_lists(v, &amdgcn, &r600);
    // The assembler of each release agrees on the retired processors.
    if let Some(mc) = llvm_tool(v, "llvm-mc") {
        for t in targets::RETIRED {
            let out = Command::new(&mc)
                .args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={}", t.name)])
                .stdin(Stdio::null())
                .output();
            let known = out.is_ok_and(|o| {
                !String::from_utf8_lossy(&o.stderr).contains("is not a recognized processor")
            });
            if known != t.known_to_llvm(v) {
                bad.push(format!("llvm-mc-{v} -mcpu={}: recognized {known}", t.name));
            }
        }
    }
    let (jobs, job_bad) = jobs(v, &amdgcn, &r600);
    bad.extend(job_bad);
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("kernel.ll"), KERNEL_IR).expect("write IR");
    std::fs::write(dir.path().join("empty.ll"), EMPTY_IR).expect("write IR");
    let built: Vec<(usize, Built)> =
        par_map(&jobs.iter().enumerate().collect::<Vec<_>>(), |&(i, job)| {
            vec![(i, run_llc(&llc, v, dir.path(), job))]
        });
    let objs: Vec<&PathBuf> = built
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok().map(|(p, _)| p))
        .collect();
    let headers = read_headers(&readobj, &objs);
    let (mut modelled, mut aliases, mut unmodelled) = (0, 0, 0);
    for (i, result) in &built {
        let job = &jobs[*i];
        let (obj, stderr) = match result {
            Ok(x) => x,
            Err(e) => {
                bad.push(format!("LLVM {v} {} ({}): {e}", job.name, job.cov));
                continue;
            }
        };
        let Some(&header) = headers.get(obj) else {
            bad.push(format!(
                "LLVM {v} {}: llvm-readobj-{v} did not read it",
                job.name
            ));
            continue;
        };
        let bytes = std::fs::read(obj).expect("read object");
        bad.extend(compare_object(v, job, stderr, &bytes, header));
        match job.named {
            Named::Modelled(t) if t.name == job.name => modelled += 1,
            Named::Modelled(_) => aliases += 1,
            Named::Unmodelled(..) => unmodelled += 1,
            Named::NotProcessor => {}
        }
    }
    eprintln!(
        "LLVM {v}: {} amdgcn and {} r600 names; {modelled} modelled processors, {aliases} aliases, {unmodelled} unmodelled, {} llc runs",
        amdgcn.len(),
        r600.len(),
        jobs.len()
    );
    Some(bad)
}

#[test]
fn every_installed_llvm_agrees_with_the_table() {
    let mut bad = Vec::new();
    for v in LLVM_VERSIONS {
        if let Some(b) = check_llvm_version(v) {
            bad.extend(b);
        }
    }
    fail_with("installed LLVMs vs target tables", &bad);
}

/// gfx940 and gfx941 objects as clang-19 builds them, in V4 and V5 and
/// with xnack/sramecc settings: the table decodes them, the oracle finds
/// no error or warning, and one info says that later LLVM retired them.
#[test]
fn clang19_retired_processors_are_clean() {
    let Some(clang) = support::require_tool("clang-19") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("k.cl"), KERNELS).expect("write kernel source");
    let mut cases = Vec::new();
    for t in targets::RETIRED {
        for cov in ["4", "5"] {
            for features in [
                "",
                ":xnack+",
                ":xnack-:sramecc+",
                ":sramecc-",
                ":sramecc+:xnack+",
            ] {
                cases.push((t, cov, features));
            }
        }
    }
    assert_eq!(cases.len(), 20);
    let mismatches = par_map(&cases, |&(t, cov, features)| {
        let mcpu = format!("{}{features}", t.name);
        let what = format!("clang-19 -mcpu={mcpu} V{cov}");
        let file = format!("{}_v{cov}", mcpu.replace([':', '+', '-'], "_"));
        let obj = match compile(&clang, dir.path(), &mcpu, cov, &file) {
            Ok(o) => o,
            Err(e) => return vec![format!("{what}: {e}")],
        };
        let bytes = std::fs::read(&obj).expect("read object");
        let id = TargetId::parse(&mcpu).expect("the oracle knows retired processors");
        let mut bad = Vec::new();
        let report = check_object(&bytes);
        if report.target.as_deref() != Some(id.to_v4_string().as_str()) {
            bad.push(format!(
                "{what}: the oracle sees target {:?}",
                report.target
            ));
        }
        bad.extend(
            report
                .violations
                .iter()
                .filter(|x| x.severity >= Severity::Warning)
                .map(|x| describe(&what, x)),
        );
        let retired: Vec<&Violation> = report
            .violations
            .iter()
            .filter(|x| x.rule.id == "elf.e_flags.mach_retired")
            .collect();
        let want = format!(
            "{}, which LLVM {}-20 build but LLVM 21",
            t.name, t.llvm_first
        );
        match retired[..] {
            [x] if x.severity == Severity::Info && x.message.contains(&want) => {}
            _ => bad.push(format!("{what}: mach_retired findings {retired:?}")),
        }
        bad
    });
    fail_with("clang-19 gfx940/gfx941", &mismatches);
}
