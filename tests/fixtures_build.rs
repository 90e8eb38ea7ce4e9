//! Builds the fixture matrix (tests/support/fixtures.rs) and checks, with
//! LLVM's own tools and the raw bytes only (no oracle), that every fixture
//! is the code object it claims to be and exercises what its source is for.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use serde_json::Value;
use support::fixtures::{self, Fixture, KERNARG_PRELOAD};

/// A symbol as llvm-readobj-19 reports it.
#[derive(Debug)]
struct Symbol {
    name: String,
    value: u64,
    size: u64,
    kind: String,
    section: usize,
}

/// A section's address and file offset (for locating descriptor bytes).
#[derive(Debug)]
struct Section {
    address: u64,
    offset: u64,
    size: u64,
}

/// llvm-objdump-19's reading of one `NAME.kd`: its directives, or the
/// error it printed instead.
type KdListing = Result<BTreeMap<String, i64>, String>;

/// Everything the tests look at for one fixture, computed once.
#[derive(Debug)]
struct View {
    fixture: Fixture,
    bytes: Vec<u8>,
    e_flags: u32,
    flag_names: Vec<String>,
    symbols: Vec<Symbol>,
    /// Per kernel: the 64 descriptor bytes (V3+ only).
    kds: BTreeMap<String, [u8; 64]>,
    /// Per kernel: llvm-objdump-19's listing of the descriptor (V3+ only).
    listings: BTreeMap<String, KdListing>,
}

fn tool_output(tool: &str, args: &[&str], path: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("running {tool}: {e}"));
    assert!(
        out.status.success(),
        "{tool} {} {} failed: {}",
        args.join(" "),
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn json_u64(v: &Value, what: &str) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{what}: not an unsigned number: {v}"))
}

fn json_str<'a>(v: &'a Value, what: &str) -> &'a str {
    v.as_str()
        .unwrap_or_else(|| panic!("{what}: not a string: {v}"))
}

/// Parses llvm-objdump-19 `-D --disassemble-symbols=…kd` output into one
/// listing per descriptor symbol.
fn parse_kd_listings(text: &str) -> BTreeMap<String, KdListing> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, BTreeMap<String, i64>)> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("; error decoding ") {
            if let Some((sym, msg)) = rest.split_once(": ") {
                let kernel = sym.strip_suffix(".kd").unwrap_or(sym);
                out.insert(kernel.to_owned(), Err(msg.to_owned()));
            }
        } else if let Some(name) = line.strip_prefix(".amdhsa_kernel ") {
            current = Some((name.to_owned(), BTreeMap::new()));
        } else if line == ".end_amdhsa_kernel" {
            if let Some((name, dirs)) = current.take() {
                out.insert(name, Ok(dirs));
            }
        } else if let (Some((_, dirs)), Some(rest)) =
            (current.as_mut(), line.strip_prefix(".amdhsa_"))
        {
            if let Some((key, value)) = rest.split_once(char::is_whitespace) {
                let value = value.trim();
                let parsed = value
                    .strip_prefix("0x")
                    .map_or_else(
                        || value.parse::<i64>().ok(),
                        |h| i64::from_str_radix(h, 16).ok(),
                    )
                    .unwrap_or_else(|| panic!("unparsed directive value: {line}"));
                dirs.insert(key.to_owned(), parsed);
            }
        }
    }
    out
}

fn view(fixture: &Fixture) -> View {
    let bytes = std::fs::read(&fixture.path).unwrap_or_else(|e| panic!("{}: {e}", fixture.name));
    let json_text = tool_output(
        "llvm-readobj-19",
        &[
            "--file-headers",
            "--sections",
            "--symbols",
            "--elf-output-style=JSON",
        ],
        &fixture.path,
    );
    let json: Value = serde_json::from_str(&json_text)
        .unwrap_or_else(|e| panic!("{}: readobj JSON: {e}", fixture.name));
    let obj = &json[0];
    let e_flags = json_u64(&obj["ElfHeader"]["Flags"]["Value"], "Flags") as u32;
    let flag_names = obj["ElfHeader"]["Flags"]["Flags"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| json_str(&f["Name"], "flag name").to_owned())
                .collect()
        })
        .unwrap_or_default();
    let sections: Vec<Section> = obj["Sections"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no Sections", fixture.name))
        .iter()
        .map(|s| Section {
            address: json_u64(&s["Section"]["Address"], "Address"),
            offset: json_u64(&s["Section"]["Offset"], "Offset"),
            size: json_u64(&s["Section"]["Size"], "Size"),
        })
        .collect();
    let symbols: Vec<Symbol> = obj["Symbols"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: no Symbols", fixture.name))
        .iter()
        .map(|s| {
            let s = &s["Symbol"];
            Symbol {
                name: json_str(&s["Name"]["Name"], "symbol name").to_owned(),
                value: json_u64(&s["Value"], "Value"),
                size: json_u64(&s["Size"], "Size"),
                kind: json_str(&s["Type"]["Name"], "symbol type").to_owned(),
                section: json_u64(&s["Section"]["Value"], "section index") as usize,
            }
        })
        .collect();

    let mut kds = BTreeMap::new();
    let mut listings = BTreeMap::new();
    if fixture.cov >= 3 {
        for kernel in &fixture.kernels {
            let kd_name = format!("{kernel}.kd");
            let Some(sym) = symbols.iter().find(|s| s.name == kd_name) else {
                continue; // reported by kernels_have_descriptor_symbols
            };
            let sec = sections.get(sym.section).unwrap_or_else(|| {
                panic!("{}: {kd_name} in section {}", fixture.name, sym.section)
            });
            // Relocatable symbols are section-relative (address 0).
            let in_sec = sym.value - sec.address;
            assert!(
                in_sec + 64 <= sec.size,
                "{}: {kd_name} outside its section",
                fixture.name
            );
            let start = (sec.offset + in_sec) as usize;
            let kd: [u8; 64] = bytes[start..start + 64].try_into().expect("64 bytes");
            kds.insert(kernel.clone(), kd);
        }
        let list: Vec<String> = fixture.kernels.iter().map(|k| format!("{k}.kd")).collect();
        let arg = format!("--disassemble-symbols={}", list.join(","));
        listings = parse_kd_listings(&tool_output(
            "llvm-objdump-19",
            &["-D", &arg],
            &fixture.path,
        ));
    }
    View {
        fixture: fixture.clone(),
        bytes,
        e_flags,
        flag_names,
        symbols,
        kds,
        listings,
    }
}

/// Builds the fixtures and reads every one once per test process (two at a
/// time). `None` when a tool is missing outside CI.
fn views() -> Option<&'static [View]> {
    static VIEWS: OnceLock<Vec<View>> = OnceLock::new();
    let mut fixtures = fixtures::all()?;
    fixtures.extend(fixtures::v2()?);
    support::require_tool("llvm-readobj-19")?;
    support::require_tool("llvm-objdump-19")?;
    Some(VIEWS.get_or_init(|| {
        let next = AtomicUsize::new(0);
        let mut out: Vec<(usize, View)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(f) = fixtures.get(i) else { break };
                            done.push((i, view(f)));
                        }
                        done
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        out.sort_by_key(|(i, _)| *i);
        out.into_iter().map(|(_, v)| v).collect()
    }))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The processor without target features.
fn base_cpu(cpu: &str) -> &str {
    cpu.split(':').next().unwrap_or(cpu)
}

/// True for GFX10 and later (every such processor name in the matrix starts
/// with `gfx1`; GFX8/9 names start with `gfx8`/`gfx9`).
fn is_gfx10_plus(cpu: &str) -> bool {
    base_cpu(cpu).starts_with("gfx1")
}

fn feature(cpu: &str, name: &str) -> Option<bool> {
    cpu.split(':')
        .skip(1)
        .find_map(|f| match f.strip_prefix(name)? {
            "+" => Some(true),
            "-" => Some(false),
            _ => None,
        })
}

#[test]
fn every_fixture_is_an_amdgpu_code_object() {
    let Some(views) = views() else { return };
    for v in views {
        let f = &v.fixture;
        let b = &v.bytes;
        assert_eq!(&b[0..4], b"\x7fELF", "{}", f.name);
        assert_eq!(b[4], 2, "{}: EI_CLASS must be ELFCLASS64", f.name);
        assert_eq!(b[5], 1, "{}: EI_DATA must be little-endian", f.name);
        assert_eq!(b[6], 1, "{}: EI_VERSION", f.name);
        assert_eq!(b[7], 64, "{}: EI_OSABI must be ELFOSABI_AMDGPU_HSA", f.name);
        assert_eq!(
            b[8],
            f.cov - 2,
            "{}: EI_ABIVERSION for code object V{}",
            f.name,
            f.cov
        );
        let e_type = u16_at(b, 16);
        assert_eq!(
            e_type,
            if f.relocatable { 1 } else { 3 },
            "{}: e_type",
            f.name
        );
        assert_eq!(
            u16_at(b, 18),
            224,
            "{}: e_machine must be EM_AMDGPU",
            f.name
        );
        assert_eq!(
            u32_at(b, 48),
            v.e_flags,
            "{}: e_flags vs llvm-readobj",
            f.name
        );

        // The processor really is the one asked for.
        let mach = format!(
            "EF_AMDGPU_MACH_AMDGCN_{}",
            base_cpu(&f.cpu).to_uppercase().replace('-', "_")
        );
        assert!(
            v.flag_names.contains(&mach),
            "{}: flags {:?} lack {mach}",
            f.name,
            v.flag_names
        );

        let generic = f.cpu.contains("generic");
        if f.cov >= 6 {
            assert_eq!(
                v.e_flags >> 24,
                u32::from(generic),
                "{}: EF_AMDGPU_GENERIC_VERSION",
                f.name
            );
        } else {
            assert!(!generic, "{}: generic targets need V6", f.name);
        }

        if f.cov >= 4 {
            // Explicit target features: on = 0x300 / 0xC00, off = 0x200 / 0x800.
            if let Some(on) = feature(&f.cpu, "xnack") {
                assert_eq!(
                    v.e_flags & 0x300,
                    if on { 0x300 } else { 0x200 },
                    "{}: xnack",
                    f.name
                );
            }
            if let Some(on) = feature(&f.cpu, "sramecc") {
                assert_eq!(
                    v.e_flags & 0xC00,
                    if on { 0xC00 } else { 0x800 },
                    "{}: sramecc",
                    f.name
                );
            }
        } else {
            // LLVM 14 writes the V3 single bits for V2 too, and turns a
            // supported feature on unless -mattr turns it off.
            let base = base_cpu(&f.cpu);
            let off = |feat: &str| {
                f.options
                    .iter()
                    .any(|o| o.starts_with("-mattr=") && o.contains(&format!("-{feat}")))
            };
            let xnack =
                hsaco_oracle::targets::by_name(base).is_some_and(|t| t.xnack) && !off("xnack");
            let sramecc = matches!(base, "gfx906" | "gfx90a") && !off("sramecc");
            assert_eq!(v.e_flags & 0x100 != 0, xnack, "{}: V2/V3 xnack bit", f.name);
            assert_eq!(
                v.e_flags & 0x200 != 0,
                sramecc,
                "{}: V2/V3 sramecc bit",
                f.name
            );
            assert_eq!(
                v.e_flags & !0x3ff,
                0,
                "{}: unexpected high e_flags bits",
                f.name
            );
        }
    }
}

#[test]
fn kernels_have_descriptor_symbols() {
    let Some(views) = views() else { return };
    for v in views {
        let f = &v.fixture;
        let expected: BTreeSet<&str> = f.kernels.iter().map(String::as_str).collect();
        if f.cov == 2 {
            // V2 marks the kernel entry itself (STT_AMDGPU_HSA_KERNEL, 10);
            // there are no descriptor symbols.
            let found: BTreeSet<&str> = v
                .symbols
                .iter()
                .filter(|s| s.kind == "AMDGPU_HSA_KERNEL")
                .map(|s| s.name.as_str())
                .collect();
            assert_eq!(found, expected, "{}: STT_AMDGPU_HSA_KERNEL symbols", f.name);
            assert!(
                !v.symbols.iter().any(|s| s.name.ends_with(".kd")),
                "{}: V2 with .kd symbols",
                f.name
            );
            continue;
        }
        let found: BTreeSet<&str> = v
            .symbols
            .iter()
            .filter_map(|s| s.name.strip_suffix(".kd"))
            .collect();
        assert_eq!(
            found, expected,
            "{}: NAME.kd symbols vs kernels in the source",
            f.name
        );
        for k in &f.kernels {
            let kd = v
                .symbols
                .iter()
                .find(|s| s.name == format!("{k}.kd"))
                .expect("checked above");
            assert_eq!(
                (kd.size, kd.kind.as_str()),
                (64, "Object"),
                "{}: {k}.kd",
                f.name
            );
            assert_eq!(
                kd.value % 64,
                0,
                "{}: {k}.kd must be 64-byte aligned",
                f.name
            );
            let code = v.symbols.iter().find(|s| s.name == *k);
            assert_eq!(
                code.map(|s| s.kind.as_str()),
                Some("Function"),
                "{}: kernel entry symbol {k}",
                f.name
            );
            assert!(v.kds.contains_key(k), "{}: {k}.kd bytes", f.name);
        }
    }
}

#[test]
fn kernarg_preload_variants_preload() {
    let Some(views) = views() else { return };
    let mut preload_fixtures = 0;
    for v in views.iter().filter(|v| v.fixture.cov >= 3) {
        let f = &v.fixture;
        let preload = f
            .options
            .iter()
            .map(String::as_str)
            .eq(KERNARG_PRELOAD.iter().copied());
        for (kernel, kd) in &v.kds {
            let field = u16_at(kd, 58);
            let listed = match v.listings.get(kernel) {
                Some(Ok(dirs)) => Some(
                    dirs.get("user_sgpr_kernarg_preload_length")
                        .copied()
                        .unwrap_or(0),
                ),
                _ => None,
            };
            if !preload {
                assert_eq!(
                    field, 0,
                    "{}: {kernel} kernarg_preload without the option",
                    f.name
                );
                continue;
            }
            // The gfx90a/gfx942 descriptors always decode in llvm-objdump-19.
            assert_eq!(
                listed,
                Some(i64::from(field & 0x7f)),
                "{}: {kernel} objdump vs bytes 58-59",
                f.name
            );
            if kernel == "preload_scalars" {
                // Eight ints and a pointer, from offset 0. gfx90a spends four
                // user SGPRs on the private segment buffer and preloads the
                // eight ints; gfx942 (architected flat scratch) has room for
                // the pointer too. Values as LLVM 19 decides them.
                let expected = if base_cpu(&f.cpu) == "gfx942" { 10 } else { 8 };
                assert_eq!(
                    field, expected,
                    "{}: preload_scalars kernarg_preload",
                    f.name
                );
                preload_fixtures += 1;
            }
        }
    }
    assert_eq!(preload_fixtures, 6, "gfx90a and gfx942 at V4, V5 and V6");
}

#[test]
fn workgroup_id_y_and_z_are_enabled() {
    let Some(views) = views() else { return };
    let mut seen = 0;
    for v in views.iter().filter(|v| v.fixture.cov >= 3) {
        let f = &v.fixture;
        for (kernel, y, z) in [
            ("group_ids_xyz", 1, 1),
            ("group_ids_yz", 1, 1),
            ("group_id_z_only", 0, 1),
        ] {
            let Some(kd) = v.kds.get(kernel) else {
                continue;
            };
            seen += 1;
            let rsrc2 = u32_at(kd, 52);
            assert_eq!(
                (rsrc2 >> 8) & 1,
                y,
                "{}: {kernel} ENABLE_SGPR_WORKGROUP_ID_Y",
                f.name
            );
            assert_eq!(
                (rsrc2 >> 9) & 1,
                z,
                "{}: {kernel} ENABLE_SGPR_WORKGROUP_ID_Z",
                f.name
            );
            assert_eq!(
                (rsrc2 >> 11) & 3,
                2,
                "{}: {kernel} ENABLE_VGPR_WORKITEM_ID",
                f.name
            );
            if let Some(Ok(dirs)) = v.listings.get(kernel) {
                assert_eq!(
                    dirs.get("system_sgpr_workgroup_id_y"),
                    Some(&i64::from(y)),
                    "{}: {kernel}",
                    f.name
                );
                assert_eq!(
                    dirs.get("system_sgpr_workgroup_id_z"),
                    Some(&i64::from(z)),
                    "{}: {kernel}",
                    f.name
                );
            }
        }
    }
    assert!(seen > 100, "only {seen} work-group id kernels checked");
}

/// llvm-objdump-19 refuses GFX10+ descriptors whose
/// GRANULATED_WAVEFRONT_SGPR_COUNT (rsrc1 bits 9:6) is not zero, and
/// clang-19 writes such descriptors for kernels using more than a few
/// SGPRs (fixed in LLVM by PR #154666). Where it does decode, its fields
/// must match the bytes.
#[test]
fn objdump_reads_descriptors_except_the_gfx10_sgpr_granule() {
    let Some(views) = views() else { return };
    let mut refused = 0;
    for v in views.iter().filter(|v| v.fixture.cov >= 3) {
        let f = &v.fixture;
        for (kernel, kd) in &v.kds {
            let rsrc1 = u32_at(kd, 48);
            let sgpr_granule = (rsrc1 >> 6) & 0xf;
            let listing = v
                .listings
                .get(kernel)
                .unwrap_or_else(|| panic!("{}: no objdump listing of {kernel}", f.name));
            if is_gfx10_plus(&f.cpu) && sgpr_granule != 0 {
                refused += 1;
                let err = listing
                    .as_ref()
                    .expect_err("objdump decoded a descriptor it rejects elsewhere");
                assert!(
                    err.contains("GRANULATED_WAVEFRONT_SGPR_COUNT"),
                    "{}: {kernel}: {err}",
                    f.name
                );
                continue;
            }
            let dirs = listing
                .as_ref()
                .unwrap_or_else(|e| panic!("{}: objdump cannot read {kernel}.kd: {e}", f.name));
            for (directive, at) in [
                ("group_segment_fixed_size", 0),
                ("private_segment_fixed_size", 4),
                ("kernarg_size", 8),
            ] {
                assert_eq!(
                    dirs.get(directive),
                    Some(&i64::from(u32_at(kd, at))),
                    "{}: {kernel} {directive}",
                    f.name
                );
            }
        }
    }
    assert!(
        refused > 0,
        "no GFX10+ descriptor with a non-zero SGPR granule: the LLVM 19 quirk is gone"
    );
}

#[test]
fn fixtures_exercise_their_features() {
    let Some(views) = views() else { return };
    for v in views.iter().filter(|v| v.fixture.cov >= 3) {
        let f = &v.fixture;
        let kd = |k: &str| {
            v.kds
                .get(k)
                .unwrap_or_else(|| panic!("{}: no {k}.kd", f.name))
        };
        if f.compiler == "llc-14" {
            assert_eq!(u32_at(kd("lds_sum"), 0), 1024, "{}: lds_sum LDS", f.name);
            assert!(
                u32_at(kd("scratch_index"), 4) >= 256,
                "{}: scratch_index private size",
                f.name
            );
            assert_eq!(
                u16_at(kd("many_args"), 56) & 0x6,
                0x6,
                "{}: many_args dispatch+queue ptr",
                f.name
            );
            continue;
        }
        for (kernel, kd) in &v.kds {
            let props = u16_at(kd, 56);
            let wave32 = props >> 10 & 1;
            let expect_wave32 =
                is_gfx10_plus(&f.cpu) && !f.options.iter().any(|o| o == "-mwavefrontsize64");
            assert_eq!(
                wave32,
                u16::from(expect_wave32),
                "{}: {kernel} ENABLE_WAVEFRONT_SIZE32",
                f.name
            );
        }
        if !f.name.contains("kernels.cl") {
            continue;
        }
        assert_eq!(
            u32_at(kd("lds_reduce"), 0),
            1028,
            "{}: lds_reduce static LDS",
            f.name
        );
        assert!(
            u32_at(kd("scratch_dynamic_index"), 4) >= 256,
            "{}: scratch not promoted",
            f.name
        );
        assert!(
            u32_at(kd("large_private"), 4) >= 16384,
            "{}: large_private",
            f.name
        );
        // AMDGPUUsage calls USES_DYNAMIC_STACK V5+, but clang-19 -c sets
        // the bit at V4 too (only its assembly output omits the directive).
        let dynamic_stack = u16_at(kd("indirect_call"), 56) >> 11 & 1;
        assert_eq!(
            dynamic_stack, 1,
            "{}: indirect_call USES_DYNAMIC_STACK",
            f.name
        );
        let recursion = u16_at(kd("recursive_call"), 56) >> 11 & 1;
        assert_eq!(
            recursion, 0,
            "{}: recursive_call USES_DYNAMIC_STACK",
            f.name
        );
        let props = u16_at(kd("dispatch_queue_ptrs"), 56);
        assert_eq!(props >> 1 & 1, 1, "{}: dispatch ptr SGPRs", f.name);
        // V5 moved the queue pointer into the hidden kernel arguments.
        assert_eq!(
            props >> 2 & 1,
            u16::from(f.cov == 4),
            "{}: queue ptr SGPRs",
            f.name
        );
    }
}

/// The matrix reaches what the oracle's acceptance test needs.
#[test]
fn matrix_covers_targets_and_versions() {
    let Some(all) = fixtures::all() else { return };
    let Some(v2) = fixtures::v2() else { return };
    let mut names = BTreeSet::new();
    for f in all.iter().chain(&v2) {
        assert!(
            names.insert(f.name.as_str()),
            "duplicate fixture name {}",
            f.name
        );
        assert!(f.path.is_file(), "{}: {} missing", f.name, f.path.display());
    }
    let has = |cpu: &str, cov: u8| {
        all.iter()
            .any(|f| f.cpu == cpu && f.cov == cov && !f.relocatable && f.options.is_empty())
    };
    for cpu in [
        "gfx803",
        "gfx900",
        "gfx906",
        "gfx908",
        "gfx90a",
        "gfx90a:xnack+",
        "gfx90a:xnack-",
        "gfx90a:sramecc+",
        "gfx90a:sramecc-",
        "gfx90a:sramecc+:xnack+",
        "gfx942",
        "gfx1010",
        "gfx1030",
        "gfx1100",
        "gfx1151",
        "gfx1200",
        "gfx1201",
    ] {
        for cov in [4, 5, 6] {
            assert!(has(cpu, cov), "no {cpu} V{cov} fixture");
        }
    }
    for cpu in [
        "gfx9-generic",
        "gfx10-1-generic",
        "gfx10-3-generic",
        "gfx11-generic",
        "gfx12-generic",
    ] {
        assert!(has(cpu, 6), "no {cpu} V6 fixture");
    }
    for cpu in ["gfx803", "gfx900", "gfx906", "gfx90a"] {
        assert!(has(cpu, 3), "no {cpu} V3 fixture");
    }
    assert!(all
        .iter()
        .any(|f| f.cpu == "gfx1030" && f.options == ["-mwavefrontsize64"]));
    // One relocatable object per processor.
    let bases: BTreeSet<&str> = all.iter().map(|f| base_cpu(&f.cpu)).collect();
    let relocatable: BTreeSet<&str> = all
        .iter()
        .filter(|f| f.relocatable)
        .map(|f| base_cpu(&f.cpu))
        .collect();
    assert_eq!(
        relocatable, bases,
        "processors without a relocatable fixture"
    );
    assert!(v2.iter().all(|f| f.cov == 2) && !v2.is_empty());
    assert!(v2.iter().any(|f| f.relocatable));
    assert!(all.iter().all(|f| f.cov >= 3));
    eprintln!("fixtures: {} in all(), {} in v2()", all.len(), v2.len());
}

#[test]
fn kernel_names_follow_the_source_convention() {
    let text = "kernel void a(int x)\n__kernel void b_2(void)\n  kernel void indented(int)\n\
                define amdgpu_kernel void @c(i32 %x) #0 {\ndefine void @helper() {\nkernel void (bad)\n";
    assert_eq!(fixtures::kernel_names(text), ["a", "b_2", "c"]);
}
