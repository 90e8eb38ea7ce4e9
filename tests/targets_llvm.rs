//! Checks the oracle's target table against the installed LLVM.
//!
//! - Which processors LLVM 19 knows (`Target::llvm19`), by asking
//!   `llvm-mc-19` for each name.
//! - For every HSA processor LLVM 19 knows, one `clang-19` compile of a
//!   two-kernel OpenCL file: the ELF `e_flags` (mach, xnack/sramecc
//!   fields, generic version), the kernel descriptors (wave32 default and
//!   wave64 on request, architected flat scratch, the SGPR init bugs) and
//!   the `amdhsa.target` metadata string must match the table, and that
//!   string must parse and print back identically.
//! - Target IDs with explicit features through `clang-19`, and the V2/V3
//!   spelling and `e_flags` of LLVM 14 through `llc-14`.
//!
//! Each test collects every mismatch and fails once with the full list.

mod support;

use hsaco_oracle::targets::{
    self, CodeObjectVersion, FeatureSetting, Generation, Target, TargetId, TRIPLE_PREFIX,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

#[test]
fn llvm19_knows_exactly_the_claimed_processors() {
    let Some(mc) = support::require_tool("llvm-mc-19") else {
        return;
    };
    // (name, triple, expected "known to LLVM 19")
    let mut cases: Vec<(String, &str, bool)> = targets::TARGETS
        .iter()
        .map(|t| {
            let triple = if t.hsa { "amdgcn-amd-amdhsa" } else { "r600" };
            (t.name.to_owned(), triple, t.llvm19)
        })
        .collect();
    // LLVM 19 still has the retired processors; the newer ones postdate it.
    cases.extend(
        targets::RETIRED
            .iter()
            .map(|(_, n)| (n.to_string(), "amdgcn-amd-amdhsa", true)),
    );
    cases.extend(
        targets::UNMODELLED
            .iter()
            .map(|(_, n)| (n.to_string(), "amdgcn-amd-amdhsa", false)),
    );
    let mismatches = par_map(&cases, |(name, triple, expected)| {
        let out = Command::new(&mc)
            .args([format!("-triple={triple}"), format!("-mcpu={name}")])
            .stdin(Stdio::null())
            .output();
        let Ok(out) = out else {
            return vec![format!("{name}: could not run llvm-mc-19")];
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        let known = !stderr.contains("is not a recognized processor");
        if known == *expected {
            vec![]
        } else {
            vec![format!(
                "{name}: table says llvm19={expected}, llvm-mc-19 says known={known}"
            )]
        }
    });
    fail_with("llvm19 flags", &mismatches);
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
    let hsa: Vec<&'static Target> = targets::hsa_targets().filter(|t| t.llvm19).collect();
    assert!(hsa.len() >= 45, "only {} LLVM 19 targets", hsa.len());
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
