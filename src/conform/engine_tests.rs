//! The engine's tests (a fake peer over `words`), kept apart from
//! [`super`] so that the engine reads as one file of its own size.

use super::*;
use crate::conform::words::WordsCmp;
use crate::conform::{NotComparable, PeerInfo};

/// An in-process stand-in for a disassembler, for the engine's own
/// logic: "crashes" on SDWA-like words (byte 0 = 0xf9) whose byte 5 or
/// byte 6 has its low three bits set, rejects 0xff bytes, else prints
/// the first byte.
struct Fake {
    info: PeerInfo,
}

impl Fake {
    fn new(id: &str, version: u32) -> Self {
        Self {
            info: PeerInfo {
                id: id.to_owned(),
                family: "fake",
                component: "fake",
                version: Some(version),
                location: "memory".into(),
                comparisons: &[ComparisonId::Words],
                named: None,
            },
        }
    }
}

fn fake_view(b: &[u8]) -> PeerResult {
    let sel = |k: usize| b.get(k).is_some_and(|x| x & 7 == 7);
    if b.first() == Some(&0xf9) && (sel(5) || sel(6)) {
        return PeerResult::Crashed(Crash {
            status: "SIGSEGV (11)".into(),
            signal: Some(11),
            exit_code: None,
            stderr: vec!["boom".into()],
            site: Some(format!("fake+{}", if sel(5) { 5 } else { 6 })),
            tags: Vec::new(),
        });
    }
    let pieces = match b.first() {
        Some(0xff) | None => vec![crate::conform::Piece::Invalid { at: 0 }],
        Some(x) => vec![crate::conform::Piece::Insn {
            size: Some(b.len()),
            text: format!("op{x}"),
            comment: None,
        }],
    };
    PeerResult::View(View::Disasm { pieces })
}

impl Peer for Fake {
    fn info(&self) -> &PeerInfo {
        &self.info
    }
    fn run(
        &self,
        _: &Ctx,
        _: ComparisonId,
        _: &str,
        inputs: &[Input],
        each: &mut dyn FnMut(usize, PeerResult),
    ) {
        for (k, i) in inputs.iter().enumerate() {
            match i {
                Input::Bytes { bytes } => each(k, fake_view(bytes)),
                _ => each(
                    k,
                    PeerResult::NotComparable(NotComparable::Reads("bytes only")),
                ),
            }
        }
    }
    fn reproducer(&self, _: ComparisonId, inputs: &[Input]) -> String {
        crate::conform::llvm::disasm_file(inputs)
    }
    fn command(&self, _: ComparisonId, _: &str, _: &str) -> Option<Vec<String>> {
        None
    }
}

fn plan(lines: Vec<(usize, Vec<u8>)>) -> Plan {
    Plan {
        comparisons: vec![Box::new(WordsCmp::new(lines))],
        targets: vec![targets::by_name("gfx900").expect("gfx900")],
        peers: vec![
            Box::new(Fake::new("fake-19", 19)),
            Box::new(Fake::new("fake-14", 14)),
        ],
        allowlist: Allowlist::empty(),
    }
}

fn settings() -> Settings {
    Settings {
        jobs: 2,
        shard: (0, 1),
        timeout: Duration::from_secs(5),
        out: None,
        reduce: true,
        reduce_budget: 300,
        progress: false,
        resume_key: String::new(),
        program: PathBuf::from("unused"),
        label: "test".into(),
    }
}

#[test]
fn crashes_are_reduced_and_deduplicated_across_versions_and_sites() {
    let lines = vec![
        (1, vec![0, 0, 0x80, 0xbf]),
        (2, vec![0xf9, 0x06, 0x02, 0x02, 0x02, 0x07, 0x06, 0x06]),
        (3, vec![0x11, 0x22]),
        (
            4,
            vec![0xf9, 0xaa, 0, 0, 0x10, 0x0f, 0, 0, 0xcc, 0xdd, 0xee, 0xff],
        ),
        (5, vec![0xf9, 0, 0, 0, 0, 0, 0x37, 0]),
        (6, vec![0xff, 0xff, 0xff, 0xff]),
    ];
    let p = plan(lines);
    let r = run(&p, &settings()).expect("runs");
    let c19 = &r.cells[&("words".to_owned(), "fake-19".to_owned())];
    let c14 = &r.cells[&("words".to_owned(), "fake-14".to_owned())];
    // The run went on past every crash.
    assert_eq!((c19.compared, c19.crashed, c19.same), (6, 3, 3));
    assert_eq!((c14.compared, c14.crashed, c14.same), (6, 3, 3));
    assert_eq!(c14.not_comparable, 0);
    assert_eq!(
        r.references.get("words").map(String::as_str),
        Some("fake-19")
    );
    // Lines 2 and 4 reduce to one input (fewer bytes, bits cleared),
    // line 5 to another; the two "sites" differ, so two findings, each
    // with both versions.
    assert_eq!(r.findings.len(), 2, "{:#?}", r.findings);
    let f = &r.findings[0];
    assert_eq!(
        f.reduced,
        vec![Input::bytes(vec![0xf9, 0, 0, 0, 0, 7, 0, 0])]
    );
    assert_eq!(f.versions, BTreeSet::from([14, 19]));
    assert_eq!(f.count, 4);
    assert_eq!(f.origin, "line 2");
    assert!(f.crashes.contains_key("fake-14") && f.crashes.contains_key("fake-19"));
    let g = &r.findings[1];
    assert_eq!(
        g.reduced,
        vec![Input::bytes(vec![0xf9, 0, 0, 0, 0, 0, 7, 0])]
    );
    assert_eq!(g.sites, BTreeSet::from(["fake+6".to_owned()]));
    assert_ne!(f.id, g.id);
    // Commands: no standalone program, so `diff words`.
    assert_eq!(f.commands[0].argv[..3], ["unused", "diff", "words"]);
}

#[test]
fn shared_sites_merge_findings() {
    let mk = |key: &str, sites: &[&str]| {
        let sig = Signature {
            kind: "crash".into(),
            scope: "disassemble".into(),
            component: "llvm".into(),
            key: key.into(),
        };
        Finding {
            id: sig.id(),
            signature: sig,
            comparison: "words".into(),
            message: key.into(),
            peers: BTreeSet::new(),
            versions: BTreeSet::new(),
            targets: BTreeSet::new(),
            count: 1,
            origin: String::new(),
            original: vec![Input::bytes(key.as_bytes().to_vec())],
            reduced: vec![Input::bytes(key.as_bytes().to_vec())],
            reduction_tests: 0,
            crash: None,
            crashes: BTreeMap::new(),
            statuses: BTreeSet::new(),
            sites: sites.iter().map(|s| (*s).to_owned()).collect(),
            also: Vec::new(),
            hang: None,
            commands: Vec::new(),
            dir: None,
            files: Vec::new(),
            informational: false,
        }
    };
    let v = merge_sites(vec![
        mk("a", &["x"]),
        mk("b", &["y"]),
        mk("c", &["x", "y"]),
        mk("d", &[]),
    ]);
    // a and c share x; b and the merged a+c share y only after one pass.
    let v = merge_sites(v);
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].count, 3);
    assert_eq!(v[0].also.len(), 2);
    assert_eq!(v[1].message, "d");
    assert!(contained(
        &Input::bytes(vec![0xf9, 0, 7]),
        &Input::bytes(vec![0xf9, 1, 7, 4])
    ));
    assert!(!contained(
        &Input::bytes(vec![0xf9, 2]),
        &Input::bytes(vec![0xf9, 1])
    ));
}

#[test]
fn units_are_numbered_before_sharding() {
    let p = plan((0..10_000).map(|k| (k, vec![0, 0, 0x80, 0xbf])).collect());
    let (u, skipped) = units(&p);
    assert!(skipped.is_empty());
    assert_eq!(u.len(), 3);
    assert_eq!(
        u.iter().map(|x| (x.id, x.chunk)).collect::<Vec<_>>(),
        [(0, 0), (1, 1), (2, 2)]
    );
    let mut s = settings();
    s.shard = (1, 2);
    let r = run(&p, &s).expect("runs");
    assert_eq!(r.units, 1);
    assert_eq!(
        r.cells[&("words".to_owned(), "fake-19".to_owned())].compared,
        4096
    );
}
