//! The dispatch layouts of `oracle/src/layout/dispatch.rs` against ROCm's
//! own headers as Debian ships them (`libhsa-runtime-dev`): a C program
//! compiled with the system C compiler prints `offsetof` and `sizeof` of
//! every member of `hsa_kernel_dispatch_packet_t`, `hsa_queue_t`,
//! `amd_queue_t` and `amd_signal_t`, the packet header's and setup's bit
//! positions, the queue property bits and the signal kinds; each must be
//! the table's.

mod support;

use hsaco_oracle::layout::dispatch::{self as d, Slot};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

const HEADERS: [&str; 3] = [
    "/usr/include/hsa/hsa.h",
    "/usr/include/hsa/amd_hsa_queue.h",
    "/usr/include/hsa/amd_hsa_signal.h",
];

/// `name -> (offset, size)` lines for every member of `table` of C type
/// `ty`, as C code.
fn members(c: &mut String, ty: &str, table: &[Slot]) {
    for s in table {
        let _ = writeln!(
            c,
            "  printf(\"{ty}.{n} %zu %zu\\n\", offsetof({ty}, {n}), sizeof((({ty}*)0)->{n}));",
            n = s.name
        );
    }
    let _ = writeln!(
        c,
        "  printf(\"{ty} sizeof %zu %zu\\n\", sizeof({ty}), _Alignof({ty}));"
    );
}

#[test]
fn dispatch_layouts_are_the_rocm_headers() {
    let Some(cc) = support::require_tool("cc") else {
        return;
    };
    if let Some(h) = HEADERS.iter().find(|h| !std::path::Path::new(h).exists()) {
        assert!(
            !support::in_ci(),
            "{h} missing (package libhsa-runtime-dev)"
        );
        eprintln!("SKIPPED: {h} missing (package libhsa-runtime-dev)");
        return;
    }
    let mut c = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include <hsa/hsa.h>\n\
         #include <hsa/amd_hsa_queue.h>\n#include <hsa/amd_hsa_signal.h>\nint main(void) {\n",
    );
    members(
        &mut c,
        "hsa_kernel_dispatch_packet_t",
        d::KERNEL_DISPATCH_PACKET,
    );
    members(&mut c, "hsa_queue_t", d::HSA_QUEUE);
    members(&mut c, "amd_queue_t", d::AMD_QUEUE);
    members(&mut c, "amd_signal_t", d::AMD_SIGNAL);
    for b in d::header::ALL {
        let _ = writeln!(
            c,
            "  printf(\"header.{n} %d %d\\n\", (int)HSA_PACKET_HEADER_{n}, (int)HSA_PACKET_HEADER_WIDTH_{n});",
            n = b.name
        );
    }
    let _ = writeln!(
        c,
        "  printf(\"setup.DIMENSIONS %d %d\\n\", (int)HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS, \
         (int)HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS);"
    );
    let _ = writeln!(
        c,
        "  printf(\"type.KERNEL_DISPATCH %d 0\\n\", (int)HSA_PACKET_TYPE_KERNEL_DISPATCH);"
    );
    for (v, n) in d::header::FENCE_SCOPES {
        let _ = writeln!(
            c,
            "  printf(\"scope.{v} %d 0\\n\", (int)HSA_FENCE_SCOPE_{});",
            n.to_uppercase()
        );
    }
    for (n, _, _) in d::QUEUE_PROPERTIES {
        let _ = writeln!(
            c,
            "  printf(\"queue_properties.{n} %d %d\\n\", (int)AMD_QUEUE_PROPERTIES_{n}_SHIFT, \
             (int)AMD_QUEUE_PROPERTIES_{n}_WIDTH);"
        );
    }
    for (_, n) in d::SIGNAL_KINDS {
        let _ = writeln!(c, "  printf(\"kind.{n} %lld 0\\n\", (long long){n});");
    }
    c.push_str("  return 0;\n}\n");
    let dir = tempfile::tempdir().expect("tmp");
    let (src, exe) = (dir.path().join("layout.c"), dir.path().join("layout"));
    std::fs::write(&src, &c).expect("write C");
    let o = Command::new(&cc)
        .args(["-std=c11", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("run cc");
    assert!(
        o.status.success(),
        "{}\n{c}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = Command::new(&exe).output().expect("run the layout program");
    // Lines are `KEY A B`; a structure's size line is `TYPE sizeof SIZE ALIGN`.
    let got: BTreeMap<String, (i64, i64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (k, rest) = match l.split_once(" sizeof ") {
                Some((ty, rest)) => (format!("{ty} sizeof"), rest),
                None => {
                    let (k, rest) = l.split_once(' ')?;
                    (k.to_owned(), rest)
                }
            };
            let (a, b) = rest.split_once(' ')?;
            Some((k, (a.parse().ok()?, b.parse().ok()?)))
        })
        .collect();
    let mut want: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    for (ty, table, size) in [
        (
            "hsa_kernel_dispatch_packet_t",
            d::KERNEL_DISPATCH_PACKET,
            d::PACKET_SIZE,
        ),
        ("hsa_queue_t", d::HSA_QUEUE, d::HSA_QUEUE_SIZE),
        ("amd_queue_t", d::AMD_QUEUE, d::AMD_QUEUE_SIZE),
        ("amd_signal_t", d::AMD_SIGNAL, d::AMD_SIGNAL_SIZE),
    ] {
        for s in table {
            want.insert(format!("{ty}.{}", s.name), (s.offset as i64, s.size as i64));
        }
        let align = match ty {
            "amd_queue_t" | "amd_signal_t" => d::AMD_OBJECT_ALIGN as i64,
            _ => 8,
        };
        want.insert(format!("{ty} sizeof"), (size as i64, align));
    }
    for b in d::header::ALL {
        want.insert(
            format!("header.{}", b.name),
            (b.shift.into(), b.width.into()),
        );
    }
    want.insert(
        "setup.DIMENSIONS".into(),
        (
            d::SETUP_DIMENSIONS.shift.into(),
            d::SETUP_DIMENSIONS.width.into(),
        ),
    );
    want.insert(
        "type.KERNEL_DISPATCH".into(),
        (d::header::TYPE_KERNEL_DISPATCH.into(), 0),
    );
    for (v, _) in d::header::FENCE_SCOPES {
        want.insert(format!("scope.{v}"), (v.into(), 0));
    }
    for (n, shift, width) in d::QUEUE_PROPERTIES {
        want.insert(
            format!("queue_properties.{n}"),
            ((*shift).into(), (*width).into()),
        );
    }
    for (v, n) in d::SIGNAL_KINDS {
        want.insert(format!("kind.{n}"), (*v, 0));
    }
    for (k, w) in &want {
        assert_eq!(
            got.get(k),
            Some(w),
            "{k}: headers {:?}, table {w:?}",
            got.get(k)
        );
    }
    assert!(want.len() >= 60, "{} facts", want.len());
}
