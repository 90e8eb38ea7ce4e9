//! The container layer against real LLVM tools: offload bundles, compressed
//! or not, written by clang-offload-bundler-19 and -22 (every header
//! version each writes) and by clang's `--offload-compress` into host
//! objects, linked together by ld.lld into one `.hip_fatbin`; compressed
//! bundles of the versions and methods no installed tool writes, built
//! here and read back by clang-offload-bundler; a real code object copied
//! into a host data section by llvm-objcopy. `container::scan` must yield
//! exactly the entries `clang-offload-bundler --unbundle` extracts, byte
//! for byte, and `hsaco-conform check` must check them with exit 0.
//!
//! Also bad compressed bundles through the binary: each is one line naming
//! the file, and exit status 2.

mod support;

use hsaco_oracle::container::{self, Visit};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::ccob::{self as cb, Method};
use support::require_tool;

const HOST: &str = "host-x86_64-unknown-linux-gnu";
const GFX90A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a";
const GFX942: &str = "hipv4-amdgcn-amd-amdhsa--gfx942";

fn run(cmd: &mut Command) -> Output {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        o.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn check(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
        .arg("check")
        .args(args)
        .output()
        .unwrap()
}

/// Every member of a file as (name, bytes), asserting the scan met no
/// problem.
fn members(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let scan = container::scan(bytes);
    assert!(scan.errors.is_empty(), "{:?}", scan.errors);
    let mut out = Vec::new();
    scan.for_each(container::DEFAULT_UNPACK_LIMIT, &mut |v| match v {
        Visit::Members(ms) => out.extend(
            ms.iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.data.to_vec())),
        ),
        Visit::Failed { at, error } => panic!("{at}: {error}"),
    });
    out
}

/// Real tools and two real code objects: gfx90a from clang-19, gfx942
/// from clang-22 (the OpenCL fixture args.cl, linked).
struct Tools {
    dir: tempfile::TempDir,
    bundler19: PathBuf,
    bundler22: PathBuf,
    objects: [Vec<u8>; 2],
}

fn tools() -> Option<Tools> {
    let clang19 = require_tool("clang-19")?;
    let clang22 = require_tool("clang-22")?;
    let bundler19 = require_tool("clang-offload-bundler-19")?;
    let bundler22 = require_tool("clang-offload-bundler-22")?;
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kernels/args.cl");
    let mut objects = Vec::new();
    for (clang, cpu) in [(&clang19, "gfx90a"), (&clang22, "gfx942")] {
        let out = dir.path().join(format!("{cpu}.hsaco"));
        run(Command::new(clang)
            .args(support::CLANG_OPENCL)
            .arg(format!("-mcpu={cpu}"))
            .arg(&src)
            .arg("-o")
            .arg(&out));
        objects.push(std::fs::read(&out).unwrap());
    }
    let objects = objects.try_into().unwrap();
    Some(Tools {
        dir,
        bundler19,
        bundler22,
        objects,
    })
}

impl Tools {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn object_paths(&self) -> [PathBuf; 2] {
        let p = [self.path("gfx90a.hsaco"), self.path("gfx942.hsaco")];
        for (p, o) in p.iter().zip(&self.objects) {
            assert_eq!(&std::fs::read(p).unwrap(), o);
        }
        p
    }

    /// Bundles host + both objects with `bundler`, compressed or not, with
    /// `COMPRESSED_BUNDLE_FORMAT_VERSION` set to `version` if given.
    fn bundle(&self, bundler: &Path, compress: bool, version: Option<&str>, out: &str) -> Vec<u8> {
        let [a, b] = self.object_paths();
        let mut cmd = Command::new(bundler);
        cmd.arg("-type=o")
            .arg(format!("-targets={HOST}-,{GFX90A},{GFX942}"))
            .arg("-input=/dev/null")
            .arg(format!("-input={}", a.display()))
            .arg(format!("-input={}", b.display()))
            .arg(format!("-output={}", self.path(out).display()));
        // The environment must not choose for the test.
        for var in [
            "OFFLOAD_BUNDLER_COMPRESS",
            "OFFLOAD_BUNDLER_COMPRESSION_LEVEL",
            "OFFLOAD_BUNDLER_VERBOSE",
            "COMPRESSED_BUNDLE_FORMAT_VERSION",
        ] {
            cmd.env_remove(var);
        }
        if compress {
            cmd.arg("--compress");
        }
        if let Some(v) = version {
            cmd.env("COMPRESSED_BUNDLE_FORMAT_VERSION", v);
        }
        run(&mut cmd);
        std::fs::read(self.path(out)).unwrap()
    }

    /// The gfx90a and gfx942 entries `bundler --unbundle` extracts from
    /// `file`.
    fn unbundle(&self, bundler: &Path, file: &Path) -> [Vec<u8>; 2] {
        let outs = [self.path("out.gfx90a"), self.path("out.gfx942")];
        run(Command::new(bundler)
            .arg("-type=o")
            .arg(format!("-targets={GFX90A},{GFX942}"))
            .arg(format!("-input={}", file.display()))
            .arg(format!("-output={}", outs[0].display()))
            .arg(format!("-output={}", outs[1].display()))
            .arg("-unbundle"));
        outs.map(|p| std::fs::read(p).unwrap())
    }

    /// The bundle IDs `bundler -list` prints for `file`, amdgcn ones only.
    fn list(&self, bundler: &Path, file: &Path) -> Vec<String> {
        let o = run(Command::new(bundler)
            .arg("-type=o")
            .arg(format!("-input={}", file.display()))
            .arg("-list"));
        let mut ids: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| l.contains("amdgcn"))
            .map(str::to_owned)
            .collect();
        ids.sort();
        ids
    }
}

/// Asserts `file` holds exactly the two objects under names `prefix` + ID,
/// as `bundler` unbundles and lists them.
fn assert_same_as_llvm(t: &Tools, bundler: &Path, file: &Path, prefix: &str) {
    let ours = members(&std::fs::read(file).unwrap());
    let names: Vec<&str> = ours.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(
        names,
        [format!("{prefix}{GFX90A}"), format!("{prefix}{GFX942}")],
        "{}",
        file.display()
    );
    let theirs = t.unbundle(bundler, file);
    assert!(
        ours[0].1 == theirs[0] && ours[1].1 == theirs[1],
        "{}: bytes differ from --unbundle",
        file.display()
    );
    assert!(
        ours[0].1 == t.objects[0] && ours[1].1 == t.objects[1],
        "{}",
        file.display()
    );
    let ids: Vec<&str> = names
        .iter()
        .map(|n| n.strip_prefix(prefix).unwrap())
        .collect();
    assert_eq!(t.list(bundler, file), ids, "{}", file.display());
}

/// One bundle to write: with which bundler, compressed or not, the
/// `COMPRESSED_BUNDLE_FORMAT_VERSION` asked for, and the header version
/// expected (`None`: uncompressed).
struct Case<'a> {
    bundler: &'a Path,
    compress: bool,
    env: Option<&'a str>,
    version: Option<u16>,
    name: &'a str,
}

#[test]
fn bundles_each_bundler_writes_are_read_as_it_unbundles_them() {
    let Some(t) = tools() else { return };
    // clang-offload-bundler-19 writes version 2 and ignores
    // COMPRESSED_BUNDLE_FORMAT_VERSION; -22 writes 3 unless asked for 2.
    let cases = [
        Case {
            bundler: &t.bundler19,
            compress: false,
            env: None,
            version: None,
            name: "plain19.bundle",
        },
        Case {
            bundler: &t.bundler22,
            compress: false,
            env: None,
            version: None,
            name: "plain22.bundle",
        },
        Case {
            bundler: &t.bundler19,
            compress: true,
            env: None,
            version: Some(2),
            name: "c19.ccob",
        },
        Case {
            bundler: &t.bundler19,
            compress: true,
            env: Some("3"),
            version: Some(2),
            name: "c19-asked3.ccob",
        },
        Case {
            bundler: &t.bundler22,
            compress: true,
            env: None,
            version: Some(3),
            name: "c22.ccob",
        },
        Case {
            bundler: &t.bundler22,
            compress: true,
            env: Some("2"),
            version: Some(2),
            name: "c22-v2.ccob",
        },
    ];
    let mut paths = Vec::new();
    for Case {
        bundler,
        compress,
        env,
        version,
        name,
    } in cases
    {
        let bytes = t.bundle(bundler, compress, env, name);
        let file = t.path(name);
        match version {
            None => {
                assert!(bytes.starts_with(container::BUNDLE_MAGIC), "{name}");
                assert_same_as_llvm(&t, bundler, &file, "");
            }
            Some(v) => {
                assert_eq!(&bytes[..4], b"CCOB", "{name}");
                assert_eq!(
                    u16::from_le_bytes([bytes[4], bytes[5]]),
                    v,
                    "{name}: version"
                );
                assert_eq!(
                    u16::from_le_bytes([bytes[6], bytes[7]]),
                    Method::Zstd.code(),
                    "{name}: method"
                );
                let h = &container::scan(&bytes).compressed[0].header;
                assert_eq!(h.total_size, Some(bytes.len() as u64), "{name}");
                assert_same_as_llvm(&t, bundler, &file, "ccob@0x0:");
            }
        }
        paths.push(file);
    }
    let args: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let o = check(&args);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("checked 12 code objects"), "{out}");
    // explain unpacks too, and names the member.
    let o = Command::new(env!("CARGO_BIN_EXE_hsaco-conform"))
        .args(["explain", "--member", "gfx942"])
        .arg(t.path("c22.ccob"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.starts_with(&format!(
            "{} [ccob@0x0:{GFX942}]\n",
            t.path("c22.ccob").display()
        )),
        "{out}"
    );
    assert!(out.contains("target gfx942"), "{out}");
}

#[test]
fn versions_and_methods_no_installed_bundler_writes_are_read_as_llvm_reads_them() {
    let Some(t) = tools() else { return };
    let plain = t.bundle(&t.bundler19, false, None, "plain.bundle");
    let mut paths = Vec::new();
    for version in 1..=3u16 {
        for method in [Method::Zlib, Method::Zstd] {
            let name = format!("v{version}-{method:?}.ccob");
            std::fs::write(t.path(&name), cb::ccob(version, method, &plain)).unwrap();
            // clang-offload-bundler-22 reads every version; -19 predates
            // version 3.
            assert_same_as_llvm(&t, &t.bundler22, &t.path(&name), "ccob@0x0:");
            if version < 3 {
                assert_same_as_llvm(&t, &t.bundler19, &t.path(&name), "ccob@0x0:");
            }
            paths.push(t.path(&name));
        }
    }
    let args: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let o = check(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn host_objects_with_compressed_and_plain_fatbins_linked_together() {
    let Some(t) = tools() else { return };
    let (Some(lld), Some(objcopy)) = (require_tool("ld.lld-19"), require_tool("llvm-objcopy-19"))
    else {
        return;
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hip/kernels.hip");
    // clang-19 --offload-compress writes version 2, clang-22 version 3;
    // the third object is uncompressed. Kernels are renamed per object so
    // that they link together.
    let builds = [
        ("clang-19", true, "c19"),
        ("clang-22", true, "c22"),
        ("clang-19", false, "u19"),
    ];
    let mut objects = Vec::new();
    let mut expected = Vec::new();
    for (clang, compress, tag) in builds {
        let Some(clang) = require_tool(clang) else {
            return;
        };
        let obj = t.path(&format!("{tag}.o"));
        let mut cmd = Command::new(&clang);
        cmd.args(["-x", "hip", "-nogpulib", "-nogpuinc", "-O2", "-c"])
            .args(["--offload-arch=gfx90a", "--offload-arch=gfx942"])
            .arg(format!("-Dhk=hk_{tag}"))
            .arg(format!("-Dhk2=hk2_{tag}"))
            .arg(&src)
            .arg("-o")
            .arg(&obj);
        if compress {
            cmd.arg("--offload-compress");
        }
        run(&mut cmd);
        // What LLVM extracts from the object's .hip_fatbin.
        let fatbin = t.path(&format!("{tag}.fatbin"));
        run(Command::new(&objcopy)
            .arg(format!("--dump-section=.hip_fatbin={}", fatbin.display()))
            .arg(&obj)
            .arg(t.path("scratch.o")));
        let fb = std::fs::read(&fatbin).unwrap();
        assert_eq!(fb.starts_with(b"CCOB"), compress, "{tag}");
        let [a, b] = t.unbundle(&t.bundler22, &fatbin);
        let kind = if compress { "ccob:" } else { "" };
        // The object alone.
        let ours = members(&std::fs::read(&obj).unwrap());
        assert_eq!(ours.len(), 2, "{tag}");
        assert!(
            ours[0].0.starts_with(".hip_fatbin@0x")
                && ours[0].0.ends_with(&format!(":{kind}{GFX90A}")),
            "{tag}: {}",
            ours[0].0
        );
        assert!(
            ours[0].1 == a && ours[1].1 == b,
            "{tag}: bytes differ from --unbundle"
        );
        expected.push((kind, a, b));
        objects.push(obj);
    }
    // One shared library: ld.lld concatenates the three .hip_fatbin
    // sections, each aligned to 4 KiB (zero padding between).
    let lib = t.path("libmixed.so");
    run(Command::new(&lld)
        .arg("-shared")
        .args(&objects)
        .arg("-o")
        .arg(&lib));
    let ours = members(&std::fs::read(&lib).unwrap());
    assert_eq!(ours.len(), 6);
    for (i, (kind, a, b)) in expected.iter().enumerate() {
        let (x, y) = (&ours[2 * i], &ours[2 * i + 1]);
        assert!(
            x.0.ends_with(&format!(":{kind}{GFX90A}"))
                && y.0.ends_with(&format!(":{kind}{GFX942}")),
            "{} {}",
            x.0,
            y.0
        );
        assert!(&x.1 == a && &y.1 == b, "object {i} differs in the library");
    }
    let paths: Vec<&Path> = objects
        .iter()
        .map(PathBuf::as_path)
        .chain([lib.as_path()])
        .collect();
    let o = check(&paths);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("checked 12 code objects"), "{out}");
}

#[test]
fn a_code_object_copied_into_a_host_data_section_is_found() {
    let Some(t) = tools() else { return };
    let (Some(clang), Some(objcopy)) = (require_tool("clang-19"), require_tool("llvm-objcopy-19"))
    else {
        return;
    };
    let host_c = t.path("host.c");
    std::fs::write(
        &host_c,
        "const char banner[] = \"host\";\nint f(void) { return banner[0]; }\n",
    )
    .unwrap();
    let host = t.path("host.o");
    run(Command::new(&clang)
        .args(["-O2", "-c"])
        .arg(&host_c)
        .arg("-o")
        .arg(&host));
    // A host object without .hip_fatbin holds no code object.
    let o = check(&[&host]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("host.o: could not check: not a code object")
    );
    // The gfx90a object between other bytes, as ROCr keeps its blit
    // kernels in an array in a data section; and the same bytes in a
    // section that is not loaded, which is not searched.
    let mut blob = b"some bytes before \x7fELF the image".to_vec();
    let at = blob.len();
    blob.extend(&t.objects[0]);
    blob.extend(b"and after");
    let blob_path = t.path("blob.bin");
    std::fs::write(&blob_path, &blob).unwrap();
    let with = t.path("embedded.o");
    run(Command::new(&objcopy)
        .arg(format!(
            "--add-section=.rodata.blit={}",
            blob_path.display()
        ))
        .arg("--set-section-flags=.rodata.blit=alloc,readonly,contents,data")
        .arg(format!(
            "--add-section=.comment.blob={}",
            blob_path.display()
        ))
        .arg(&host)
        .arg(&with));
    let bytes = std::fs::read(&with).unwrap();
    let ours = members(&bytes);
    assert_eq!(
        ours.len(),
        1,
        "{:?}",
        ours.iter().map(|m| &m.0).collect::<Vec<_>>()
    );
    let section_off = memchr_find(&bytes, &blob).expect("section bytes in the file");
    assert_eq!(ours[0].0, format!(".rodata.blit@{:#x}", section_off + at));
    assert!(
        ours[0].1 == t.objects[0],
        "the image's extent is the whole code object"
    );
    let o = check(&[&with]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("checked 1 code object "), "{out}");
}

/// First offset of `needle` in `hay`.
fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn bad_compressed_bundles_are_one_line_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let inner = cb::bundle(&[(GFX90A, b"\x7fELF not really")]);
    let good = cb::ccob(3, Method::Zstd, &inner);
    let n = good.len() as u64;
    // A stream of 1 GiB of zeros in ~32 KiB, under a header declaring 1 MiB
    // (within the default ceiling): decompression stops at 1 MiB.
    let bomb = cb::zeros(Method::Zstd, 1 << 30);
    let zlib_bomb = cb::zeros(Method::Zlib, 64 << 20);
    let stream = cb::compress(Method::Zstd, &inner);
    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        (
            "truncated.co",
            good[..good.len() - 1].to_vec(),
            format!("truncated.co: could not check: compressed offload bundle at file offset 0x0: declares a total size of {n} bytes, but only {} bytes remain", n - 1),
        ),
        (
            "huge.co",
            cb::raw(3, 1, None, 1 << 63, &stream),
            "huge.co [ccob@0x0]: could not check: compressed offload bundle at file offset 0x0: declares 9223372036854775808 bytes uncompressed, above the 1073741824-byte limit for one bundle".to_owned(),
        ),
        (
            "total.co",
            cb::raw(2, 1, Some(n + 100), inner.len() as u64, &stream),
            format!("total.co: could not check: compressed offload bundle at file offset 0x0: declares a total size of {} bytes, but only {} bytes remain", n + 100, 24 + stream.len()),
        ),
        (
            "version.co",
            cb::raw(7, 1, None, inner.len() as u64, &stream),
            "version.co: could not check: compressed offload bundle at file offset 0x0: unknown format version 7 (known: 1, 2, 3)".to_owned(),
        ),
        (
            "method.co",
            cb::raw(2, 5, None, inner.len() as u64, &stream),
            "method.co: could not check: compressed offload bundle at file offset 0x0: unknown compression method 5 (known: 0 zlib, 1 zstd)".to_owned(),
        ),
        (
            "bomb.co",
            cb::raw(3, 1, None, 1 << 20, &bomb),
            "bomb.co [ccob@0x0]: could not check: compressed offload bundle at file offset 0x0: zstd stream decompresses to more than the declared 1048576 bytes".to_owned(),
        ),
        (
            "zlib-bomb.co",
            cb::raw(1, 0, None, 1 << 20, &zlib_bomb),
            "zlib-bomb.co: could not check: compressed offload bundle at file offset 0x0: zlib stream decompresses to more than the declared 1048576 bytes".to_owned(),
        ),
    ];
    for (name, bytes, want) in cases {
        // A header that cannot be read leaves the rest of the file unread.
        let want = if want.contains(" [ccob@0x0]: ") {
            want
        } else {
            format!(
                "{want}; the remaining {} bytes of the file are not searched",
                bytes.len()
            )
        };
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = check(&[&p]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(2), "{name}: {out}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{name}: one finding and the summary: {out}");
        assert_eq!(
            lines[0],
            format!("{}/{want}", dir.path().display()),
            "{name}"
        );
        assert!(
            lines[1].ends_with(", 1 could not be checked"),
            "{name}: {}",
            lines[1]
        );
    }
}

#[test]
fn the_hsa_runtimes_embedded_blit_kernels_are_whole_code_objects() {
    let path = Path::new("/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1");
    let Ok(bytes) = std::fs::read(path) else {
        println!(
            "skipped: {} is not installed (Debian libhsa-runtime64-1)",
            path.display()
        );
        return;
    };
    let Some(readelf) = require_tool("llvm-readelf-19") else {
        return;
    };
    let ours = members(&bytes);
    // ROCr keeps its blit and trap kernels as ELF images in .data: one or
    // more per supported processor.
    assert!(ours.len() >= 20, "{} members", ours.len());
    let dir = tempfile::tempdir().unwrap();
    for (name, data) in &ours {
        assert!(name.starts_with(".data@0x"), "{name}");
        let p = dir.path().join("member.co");
        std::fs::write(&p, data).unwrap();
        // llvm-readelf reads each as a whole ELF file, and its section
        // header table ends exactly where our extent does.
        let o = run(Command::new(&readelf)
            .args(["--file-header", "--sections"])
            .arg(&p));
        assert!(
            o.stderr.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8_lossy(&o.stdout);
        let field = |label: &str| -> u64 {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(label))
                .unwrap();
            line[line.find(':').unwrap() + 1..]
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let end = field("Start of section headers")
            + field("Size of section headers") * field("Number of section headers");
        assert_eq!(data.len() as u64, end, "{name}");
    }
}
