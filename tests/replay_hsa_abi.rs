//! The HSA bindings of `src/replay/hsa.rs` against ROCm's headers and
//! library as Debian ships them (`libhsa-runtime-dev`,
//! `libhsa-runtime64-1`):
//!
//! - a C program compiled against `/usr/include/hsa/hsa.h` and
//!   `hsa_ext_amd.h` prints every enum value of the bindings' tables
//!   (`CONSTANTS`, `STATUS_NAMES`) and the size of every handle type; each
//!   must be the table's;
//! - the same program assigns each function of `SYMBOLS` to a function
//!   pointer of the type the bindings declare (translated from the Rust
//!   types to C), compiled with incompatible pointer types as errors, so a
//!   wrong argument or return type does not compile;
//! - every function of `SYMBOLS` resolves in the installed
//!   `libhsa-runtime64.so.1`.
//!
//! Outside CI a missing compiler, header or library skips with a reason;
//! under CI it fails.

mod support;

use hsaco_conform::replay::hsa::{
    Hsa, CALLBACK_TYPES, CONSTANTS, HANDLE_TYPES, NEWER_CONSTANTS, SIGNATURES, STATUS_NAMES,
    SYMBOLS,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

const HEADERS: [&str; 2] = ["/usr/include/hsa/hsa.h", "/usr/include/hsa/hsa_ext_amd.h"];

/// Skips (printing why) or, under CI, fails when `what` is missing.
fn require(ok: bool, what: &str) -> bool {
    if ok {
        return true;
    }
    assert!(!support::in_ci(), "{what}");
    eprintln!("SKIPPED: {what}");
    false
}

/// The C spelling of one Rust type of the bindings' signatures.
fn c_type(t: &str) -> String {
    let t = t.trim();
    if let Some(rest) = t.strip_prefix("*mut").or_else(|| t.strip_prefix("* mut")) {
        return format!("{}*", c_type(rest));
    }
    if let Some(rest) = t
        .strip_prefix("*const")
        .or_else(|| t.strip_prefix("* const"))
    {
        let inner = c_type(rest);
        return if inner.ends_with('*') {
            format!("{inner} const*")
        } else {
            format!("const {inner}*")
        };
    }
    if let Some(inner) = t
        .strip_prefix("Option")
        .map(str::trim)
        .and_then(|r| r.strip_prefix('<'))
        .and_then(|r| r.strip_suffix('>'))
    {
        // A nullable function pointer is the function pointer in C.
        return c_type(inner);
    }
    match t {
        "u32" => return "uint32_t".into(),
        "u64" => return "uint64_t".into(),
        "i64" => return "int64_t".into(),
        "usize" => return "size_t".into(),
        "c_void" => return "void".into(),
        "c_char" => return "char".into(),
        "HsaQueue" => return "hsa_queue_t".into(),
        _ => {}
    }
    if let Some((_, c)) = HANDLE_TYPES.iter().find(|(r, _)| *r == t) {
        return (*c).to_owned();
    }
    if let Some((_, f)) = CALLBACK_TYPES.iter().find(|(r, _)| *r == t) {
        let (ret, args) = split_fn(f);
        return format!("{ret} (*)({args})");
    }
    panic!("no C spelling for Rust type {t:?}");
}

/// `fn(A, B) -> R` as C's return type and argument list.
fn split_fn(f: &str) -> (String, String) {
    let f = f.trim();
    let body = f.strip_prefix("fn").expect("fn type").trim_start();
    let close = body.rfind(')').expect("closing parenthesis");
    let args = &body[1..close];
    let ret = body[close + 1..]
        .trim()
        .strip_prefix("->")
        .map_or_else(|| "void".to_owned(), c_type);
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, ch) in args.char_indices() {
        match ch {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&args[start..]);
    let args: Vec<String> = parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(c_type)
        .collect();
    let args = if args.is_empty() {
        "void".to_owned()
    } else {
        args.join(", ")
    };
    (ret, args)
}

#[test]
fn bindings_are_the_rocm_headers() {
    let Some(cc) = support::require_tool("cc") else {
        return;
    };
    if let Some(h) = HEADERS.iter().find(|h| !std::path::Path::new(h).exists()) {
        require(false, &format!("{h} missing (package libhsa-runtime-dev)"));
        return;
    }
    let headers: String = HEADERS
        .iter()
        .map(|h| std::fs::read_to_string(h).expect("read header"))
        .collect();
    const INCLUDES: &str =
        "#include <stdint.h>\n#include <stdio.h>\n#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n";
    let dir = tempfile::tempdir().expect("tmp");
    // The signature check (compiled, not linked): one function pointer per
    // function, of the bindings' type, initialised with the header's
    // function.
    let mut sigs = String::from(INCLUDES);
    for (name, sig) in SIGNATURES {
        let (ret, args) = split_fn(sig);
        let _ = writeln!(sigs, "{ret} (*p_{name})({args}) = {name};");
    }
    let sig_src = dir.path().join("signatures.c");
    std::fs::write(&sig_src, &sigs).expect("write C");
    let o = Command::new(&cc)
        .args(["-std=c11", "-Werror=incompatible-pointer-types", "-c", "-o"])
        .arg(dir.path().join("signatures.o"))
        .arg(&sig_src)
        .output()
        .expect("run cc");
    assert!(
        o.status.success(),
        "a signature differs from the headers:\n{}\n{sigs}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut c = String::from(INCLUDES);
    c.push_str("int main(void) {\n");
    let mut want: BTreeMap<String, i64> = BTreeMap::new();
    for (name, v) in CONSTANTS {
        if !headers.contains(name) {
            assert!(
                NEWER_CONSTANTS.contains(name),
                "{name} is not in the installed headers and not listed as newer"
            );
            eprintln!("{name}: not in the installed headers (newer ROCm), not compared");
            continue;
        }
        let _ = writeln!(c, "  printf(\"{name} %lld\\n\", (long long){name});");
        want.insert((*name).to_owned(), *v);
    }
    for (v, name) in STATUS_NAMES {
        let _ = writeln!(c, "  printf(\"{name} %lld\\n\", (long long){name});");
        want.insert((*name).to_owned(), i64::from(*v));
    }
    for (_, ty) in HANDLE_TYPES {
        let _ = writeln!(c, "  printf(\"sizeof {ty} %zu\\n\", sizeof({ty}));");
        want.insert(format!("sizeof {ty}"), 8);
    }
    let _ = writeln!(
        c,
        "  printf(\"sizeof hsa_signal_value_t %zu\\n\", sizeof(hsa_signal_value_t));"
    );
    want.insert("sizeof hsa_signal_value_t".into(), 8);
    c.push_str("  return 0;\n}\n");
    let (src, exe) = (dir.path().join("abi.c"), dir.path().join("abi"));
    std::fs::write(&src, &c).expect("write C");
    let o = Command::new(&cc)
        .args(["-std=c11", "-Werror=incompatible-pointer-types", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("run cc");
    assert!(
        o.status.success(),
        "{}\n{c}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = Command::new(&exe).output().expect("run the ABI program");
    let got: BTreeMap<String, i64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (k, v) = l.rsplit_once(' ')?;
            Some((k.to_owned(), v.parse().ok()?))
        })
        .collect();
    for (k, w) in &want {
        assert_eq!(
            got.get(k),
            Some(w),
            "{k}: headers {:?}, table {w}",
            got.get(k)
        );
    }
    assert!(want.len() >= 80, "{} facts", want.len());
}

#[test]
fn every_symbol_resolves_in_the_installed_runtime() {
    let Some(path) = hsaco_conform::peers::discover::find_hsa() else {
        require(
            false,
            "libhsa-runtime64.so.1 not found (package libhsa-runtime64-1)",
        );
        return;
    };
    // Loading resolves every symbol of the table, or names the first one
    // missing.
    match Hsa::load(Some(&path)) {
        Ok(h) => assert_eq!(h.path(), path),
        Err(e) => panic!("{e}"),
    }
    // And each by itself, so a failure lists them all.
    let missing: Vec<&str> = {
        // SAFETY: loading the runtime runs its initialisers, as the
        // bindings' own load just did in this process.
        let lib = unsafe { libloading::Library::new(&path) }.expect("load");
        SYMBOLS
            .iter()
            .copied()
            // SAFETY: only the symbol's presence is looked at.
            .filter(|s| unsafe { lib.get::<*const ()>(s.as_bytes()) }.is_err())
            .collect()
    };
    assert!(
        missing.is_empty(),
        "missing from {}: {missing:?}",
        path.display()
    );
    assert!(SYMBOLS.len() >= 30, "{} symbols", SYMBOLS.len());
}
