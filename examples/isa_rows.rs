//! Writes the instruction layer's opcode rows (`oracle/src/isa/rows/`)
//! from what LLVM's disassembler decodes, in process.
//!
//! For every processor libLLVM 22 knows (and the retired ones only
//! libLLVM 19 knows), every family the layer models and every opcode
//! value, it decodes a word whose operand fields hold distinct registers,
//! then the same word with one field changed at a time, and reads from
//! the texts which printed operand each field holds, how wide its
//! registers are, and how its constants and immediates print. Rows that
//! agree on everything are merged across processors. The rows are data:
//! `tests/isa_libllvm.rs` checks them, and the layer's decoder, against
//! both libLLVMs on every opcode and on random words.
//!
//! What the texts cannot say is written here, with its source: which
//! operands an instruction reads rather than writes ([`access`]).
//!
//! usage: cargo run --release --example isa_rows [-- --check]
//!   --check  compare with the rows in the tree instead of writing them
//!            (exit 1 when they differ)

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use hsaco_conform::conform::isolate::{Isolated, Reply, WorkerSpec};
use hsaco_conform::conform::llvm::decode_pieces;
use hsaco_conform::conform::Piece;
use hsaco_conform::peers::llvm_disasm::{self, LibInfo};
use hsaco_oracle::isa::encoding::{self, Format};
use hsaco_oracle::isa::{Access, Family, Field, IsaGen, Kind, OpType};
use hsaco_oracle::targets::{self, Target};

/// One observed operand slot.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct ObsSlot {
    field: String,
    kind: String,
    ty: String,
    dwords: u8,
    access: String,
    consts: bool,
}

/// One observed instruction.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Obs {
    family: Family,
    opcode: u16,
    name: String,
    slots: Vec<ObsSlot>,
    zero: Vec<String>,
}

/// Splits an LLVM instruction text into mnemonic and operands (commas
/// inside brackets or parentheses do not split).
fn split(text: &str) -> (String, Vec<String>) {
    let text = text.split("//").next().unwrap_or("").trim();
    let (name, rest) = text.split_once(' ').unwrap_or((text, ""));
    let mut ops = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in rest.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            ops.push(cur.trim().to_owned());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        ops.push(cur.trim().to_owned());
    }
    (name.to_owned(), ops)
}

/// The number of registers a register text names (`s5` 1, `s[4:7]` 4),
/// or `None` for a non-register.
fn reg_count(t: &str) -> Option<u8> {
    let t = t.trim_start_matches('-');
    if let Some(inner) = t
        .find('[')
        .and_then(|i| t.get(i + 1..))
        .and_then(|r| r.strip_suffix(']'))
    {
        let (a, b) = inner.split_once(':')?;
        let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
        return u8::try_from(b.checked_sub(a)? + 1).ok();
    }
    let named = ["vcc", "exec", "flat_scratch", "xnack_mask", "tba", "tma"];
    if named.contains(&t) {
        return Some(2);
    }
    let digits = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) && t != digits).then_some(1)
}

/// libLLVM's disassembler for one processor, in a worker process: some
/// probe words crash LLVM (`s_barrier_signal` with a literal on GFX12,
/// LLVM 22), and a crash must cost one probe, not the harvest.
struct Probe<'a> {
    worker: &'a mut Isolated,
    version: u32,
    cpu: String,
    crashes: &'a mut BTreeSet<String>,
}

impl Probe<'_> {
    /// LLVM's text for `word` (a zero literal dword after it), if valid.
    fn text(&mut self, word: u64, size: u8) -> Option<String> {
        self.text_lit(word, size, 0)
    }

    /// LLVM's text for `word` followed by the literal dword `lit`.
    fn text_lit(&mut self, word: u64, size: u8, lit: u32) -> Option<String> {
        let mut bytes = word.to_le_bytes()[..usize::from(size)].to_vec();
        bytes.extend(lit.to_le_bytes());
        bytes.extend([0u8; 4]);
        if std::env::var_os("ISA_ROWS_TRACE").is_some() {
            eprintln!("probe {} {bytes:02x?}", self.cpu);
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut reply = None;
        self.worker
            .run(&self.cpu, std::slice::from_ref(&hex), &mut |_, r| {
                reply = Some(r)
            });
        match reply? {
            Reply::Ok(s) => match decode_pieces(&s)?.into_iter().next()? {
                Piece::Insn { text, .. } => Some(text),
                Piece::Invalid { .. } => None,
            },
            Reply::Crashed(c) => {
                self.crashes.insert(format!(
                    "libLLVM {} -mcpu={} crashed ({}) on {hex}",
                    self.version, self.cpu, c.status
                ));
                None
            }
            Reply::TimedOut(_) => {
                self.crashes.insert(format!(
                    "libLLVM {} -mcpu={} hung on {hex}",
                    self.version, self.cpu
                ));
                None
            }
            Reply::NotComparable(why) => {
                panic!("libLLVM {} -mcpu={}: {why}", self.version, self.cpu)
            }
        }
    }
}

/// Field values the probes use: distinct, aligned for any tuple, and
/// changed to another aligned register for the second probe.
fn marker(f: Field) -> (u64, u64) {
    match f {
        Field::Sdst => (16, 48),
        Field::Ssrc0 => (8, 32),
        Field::Ssrc1 => (24, 40),
        Field::Simm16 => (0x1234, 0x2468),
        Field::Literal => (0, 0x4000),
    }
}

/// Which operands an instruction reads rather than writes, where its
/// text does not say (a destination field that is read). Sources: the
/// ISA references' SOPK descriptions (S_CMPK_* compare SDST with the
/// immediate; S_ADDK_I32 and S_MULK_I32 update SDST; S_SETREG_B32 writes
/// a hardware register from SDST; S_CBRANCH_I_FORK reads its mask from
/// SDST).
fn access(name: &str, f: Field) -> Access {
    match f {
        Field::Simm16 | Field::Literal => Access::Immediate,
        Field::Ssrc0 | Field::Ssrc1 => Access::Read,
        Field::Sdst => {
            if name.starts_with("s_cmpk_")
                || name.starts_with("s_setreg_")
                || name.starts_with("s_cbranch_i_fork")
            {
                Access::Read
            } else if name.starts_with("s_addk_") || name.starts_with("s_mulk_") {
                Access::ReadWrite
            } else {
                Access::Write
            }
        }
    }
}

/// How an immediate field prints, from its texts for several values.
fn imm_kind(
    p: &mut Probe,
    fmt: &Format,
    word: u64,
    bits: hsaco_oracle::isa::encoding::Bits,
    index: usize,
) -> String {
    let mut texts = Vec::new();
    for v in [0u64, 1, 64, 65, 0x123, 0xffff] {
        let w = bits.set(word, v);
        let t = p.text(w, fmt.size).map(|t| split(&t).1);
        texts.push((v, t));
    }
    let at = |v: u64| -> Option<String> {
        texts
            .iter()
            .find(|(x, _)| *x == v)
            .and_then(|(_, t)| t.as_ref())
            .and_then(|ops| ops.get(index).cloned())
    };
    let all: Vec<String> = texts
        .iter()
        .filter_map(|(_, t)| t.as_ref().and_then(|o| o.get(index).cloned()))
        .collect();
    let joined = all.join(" ");
    for (pat, kind) in [
        ("hwreg(", "Hwreg"),
        ("sendmsg(", "SendMsg"),
        ("depctr_", "DepCtr"),
        ("cnt(", "Waitcnt"),
        ("instid", "DelayAlu"),
        ("gpr_idx(", "GprIdx"),
        ("UC_VERSION", "Version"),
    ] {
        if joined.contains(pat) {
            return kind.to_owned();
        }
    }
    let zero_absent = texts
        .iter()
        .find(|(v, _)| *v == 0)
        .and_then(|(_, t)| t.as_ref())
        .is_some_and(|ops| ops.len() <= index);
    if zero_absent && at(0x123).as_deref() == Some("291") {
        return "Dec16Opt".to_owned();
    }
    match (at(1).as_deref(), at(65).as_deref(), at(0x123).as_deref()) {
        (Some("0x1"), _, Some("0x123")) => "Hex16".to_owned(),
        (Some("1"), Some("0x41"), Some("0x123")) => "Imm16".to_owned(),
        (Some("1"), Some("65"), Some("291")) => "Dec16".to_owned(),
        _ => format!("Unknown({joined})"),
    }
}

/// Observes opcode `op` of `fmt` on the processor `p` decodes for.
fn observe(p: &mut Probe, gen: IsaGen, fmt: &Format, op: u16) -> Option<Obs> {
    let _ = gen;
    let mut word = fmt.opcode.set(fmt.base(), u64::from(op));
    for (f, bits) in fmt.fields {
        word = bits.set(word, marker(*f).0);
    }
    let base_text = match p.text(word, fmt.size) {
        Some(t) => t,
        None => {
            // Some instructions want unused fields zero.
            word = fmt.opcode.set(fmt.base(), u64::from(op));
            p.text(word, fmt.size)?
        }
    };
    let (name, ops) = split(&base_text);
    let mut slots: Vec<Option<ObsSlot>> = vec![None; ops.len()];
    for (f, bits) in fmt.fields {
        let (a, b) = marker(*f);
        if bits.get(word) != a {
            continue;
        }
        let w2 = bits.set(word, b);
        let Some(t2) = p.text(w2, fmt.size) else {
            continue;
        };
        let (n2, ops2) = split(&t2);
        if n2 != name {
            continue;
        }
        let changed: Vec<usize> = (0..ops.len().max(ops2.len()))
            .filter(|&i| ops.get(i) != ops2.get(i))
            .collect();
        let Some(&i) = changed.first() else {
            continue;
        };
        if i >= slots.len() {
            slots.resize(i + 1, None);
        }
        let text = ops.get(i).or(ops2.get(i)).cloned().unwrap_or_default();
        // A register field whose marker does not print as a register is
        // an immediate there (s_set_gpr_idx_on's SSRC1).
        let imm_field = *f == Field::Simm16 || reg_count(&text).is_none();
        let slot = if imm_field {
            ObsSlot {
                field: format!("{f:?}"),
                kind: imm_kind(p, fmt, word, *bits, i),
                ty: "B32".to_owned(),
                dwords: 1,
                access: format!("{:?}", access(&name, *f)),
                consts: false,
            }
        } else {
            let dwords = reg_count(&text).unwrap_or(1);
            // The type of a source: how 1/(2*pi) prints there.
            let w3 = bits.set(word, 248);
            // 16-bit operands print a 32-bit literal's low half.
            let lit16 = p
                .text_lit(bits.set(word, 255), fmt.size, 0x1234_5678)
                .map(|t| split(&t).1)
                .is_some_and(|o| o.get(i).map(String::as_str) == Some("0x5678"));
            let ty = match p.text(w3, fmt.size).map(|t| split(&t).1) {
                Some(o) if o.get(i).map(String::as_str) == Some("0.15915494309189532") => "I64",
                Some(o) if o.get(i).map(String::as_str) == Some("0.15915494") && lit16 => "F16",
                Some(o) if o.get(i).map(String::as_str) == Some("0.15915494") => "B32",
                // A 16-bit float operand LLVM prints as 16-bit integer
                // bits (the GFX11.5+ SALU float compares).
                Some(o) if o.get(i).map(String::as_str) == Some("0x3118") => "F16Bits",
                _ if dwords >= 3 => "Wide",
                _ if dwords == 2 => "I64",
                _ => "B32",
            };
            // Constants: how inline 0 prints there (a register-only
            // source gets `/*Invalid immediate*/`).
            let acc = access(&name, *f);
            let consts = acc == Access::Read
                && p.text(bits.set(word, 128), fmt.size)
                    .map(|t| split(&t).1)
                    .is_some_and(|o| o.get(i).map(String::as_str) == Some("0"));
            ObsSlot {
                field: format!("{f:?}"),
                kind: "Reg".to_owned(),
                ty: ty.to_owned(),
                dwords,
                access: format!("{acc:?}"),
                consts,
            }
        };
        slots[i] = Some(slot);
    }
    // An operand no field explains may be a literal that is always there.
    for i in 0..slots.len().max(ops.len()) {
        if slots.get(i).is_some_and(Option::is_some) {
            continue;
        }
        let changed = p
            .text_lit(word, fmt.size, 0x4000)
            .map(|t| split(&t).1)
            .is_some_and(|o| {
                o.get(i) != ops.get(i) && o.get(i).map(String::as_str) == Some("0x4000")
            });
        if changed {
            if i >= slots.len() {
                slots.resize(i + 1, None);
            }
            // A K operand prints hex whatever its value; others (the
            // setreg immediate) print 0x12 as 18, as a 32-bit constant.
            let as_value = p
                .text_lit(word, fmt.size, 0x12)
                .map(|t| split(&t).1)
                .is_some_and(|o| o.get(i).map(String::as_str) == Some("18"));
            slots[i] = Some(ObsSlot {
                field: "Literal".to_owned(),
                kind: if as_value { "LitValue" } else { "Lit" }.to_owned(),
                ty: "B32".to_owned(),
                dwords: 1,
                access: "Immediate".to_owned(),
                consts: true,
            });
        }
    }
    if slots.iter().any(Option::is_none) {
        eprintln!(
            "{}: opcode {op:#x} {base_text:?}: an operand no field explains",
            fmt.family.name()
        );
        return None;
    }
    let slots: Vec<ObsSlot> = slots.into_iter().flatten().collect();
    // Fields no operand uses: LLVM refuses some when they are not 0.
    let zero_word = {
        let mut z = fmt.opcode.set(fmt.base(), u64::from(op));
        for (f, bits) in fmt.fields {
            if slots.iter().any(|s| s.field == format!("{f:?}")) {
                z = bits.set(z, bits.get(word));
            }
        }
        z
    };
    let mut zero = Vec::new();
    for (f, bits) in fmt.fields {
        if slots.iter().any(|s| s.field == format!("{f:?}")) {
            continue;
        }
        let ok_zero = p.text(zero_word, fmt.size).is_some();
        let ok_other = p.text(bits.set(zero_word, 1), fmt.size).is_some()
            && p.text(bits.set(zero_word, bits.mask() >> bits.lo), fmt.size)
                .is_some();
        if ok_zero && !ok_other {
            zero.push(format!("{f:?}"));
        }
    }
    Some(Obs {
        family: fmt.family,
        opcode: op,
        name,
        slots,
        zero,
    })
}

/// Every observation of one processor.
fn harvest(w: &mut Worker, t: &Target, crashes: &mut BTreeSet<String>) -> Vec<Obs> {
    let Some(gen) = IsaGen::of(t) else {
        return Vec::new();
    };
    let mut p = Probe {
        worker: &mut w.iso,
        version: w.version,
        cpu: t.name.to_owned(),
        crashes,
    };
    let mut out = Vec::new();
    for fam in Family::ALL {
        let Some(fmt) = encoding::format(gen, fam) else {
            continue;
        };
        for op in 0..(1u16 << fmt.opcode.width) {
            // An opcode value that another format's identifier claims
            // belongs to that format.
            let w = fmt.opcode.set(fmt.base(), u64::from(op)) as u32;
            if encoding::identify(gen, w).map(|f| f.family) != Some(fam) {
                continue;
            }
            if let Some(o) = observe(&mut p, gen, fmt, op) {
                out.push(o);
            }
        }
    }
    out
}

/// One libLLVM's worker.
struct Worker {
    iso: Isolated,
    version: u32,
}

impl Worker {
    /// A worker for libLLVM `version`, run by the `hsaco-conform` binary
    /// next to this example's directory.
    fn new(version: u32, scratch: &std::path::Path) -> Self {
        let info: LibInfo =
            llvm_disasm::find(version).unwrap_or_else(|e| panic!("libLLVM {version}: {e}"));
        let program = std::env::current_exe()
            .ok()
            .and_then(|e| Some(e.parent()?.parent()?.join("hsaco-conform")))
            .filter(|p| p.is_file())
            .unwrap_or_else(|| {
                eprintln!("isa_rows: the hsaco-conform binary is not built next to this example (cargo build --release first)");
                std::process::exit(2)
            });
        Self {
            iso: Isolated::new(WorkerSpec {
                program,
                task: "libllvm-disasm".to_owned(),
                arg: format!("{}@{}", info.version, info.path.display()),
                env: Vec::new(),
                timeout: std::time::Duration::from_secs(20),
                scratch: scratch.to_owned(),
            }),
            version,
        }
    }
}

fn main() {
    let check = std::env::args().any(|a| a == "--check");
    let scratch = std::env::temp_dir().join(format!("isa_rows-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let mut w22 = Worker::new(22, &scratch);
    let mut w19 = Worker::new(19, &scratch);
    let mut crashes = BTreeSet::new();
    // (observation) -> processors; and the LLVM 19 name per (proc, family, opcode).
    let mut rows: BTreeMap<(Obs, &'static str), BTreeSet<&'static str>> = BTreeMap::new();
    let mut names19: BTreeMap<(Family, u16, String), BTreeSet<String>> = BTreeMap::new();
    for t in targets::all_targets().filter(|t| IsaGen::of(t).is_some()) {
        let w = if t.known_to_llvm(22) {
            &mut w22
        } else {
            &mut w19
        };
        let obs = harvest(w, t, &mut crashes);
        let both = t.known_to_llvm(19) && t.known_to_llvm(22);
        let obs19 = if both {
            harvest(&mut w19, t, &mut crashes)
        } else {
            Vec::new()
        };
        let has = |v: &[Obs], o: &Obs| {
            v.iter()
                .any(|x| x.family == o.family && x.opcode == o.opcode)
        };
        for o in &obs {
            let llvm = if both && !has(&obs19, o) {
                "Since22"
            } else {
                "Both"
            };
            rows.entry((o.clone(), llvm)).or_default().insert(t.name);
        }
        for o in &obs19 {
            if !has(&obs, o) {
                rows.entry((o.clone(), "Until19"))
                    .or_default()
                    .insert(t.name);
            }
            names19
                .entry((o.family, o.opcode, t.name.to_owned()))
                .or_default()
                .insert(o.name.clone());
        }
        eprintln!("isa_rows: {} done", t.name);
    }
    let mut sets: BTreeMap<Vec<&str>, String> = BTreeMap::new();
    let mut body = String::new();
    for ((o, llvm), procs) in &rows {
        let procs: Vec<&str> = procs.iter().copied().collect();
        let n = sets.len();
        let set = sets
            .entry(procs.clone())
            .or_insert_with(|| format!("P{n}"))
            .clone();
        let n19: BTreeSet<&String> = procs
            .iter()
            .filter_map(|p| names19.get(&(o.family, o.opcode, (*p).to_owned())))
            .flatten()
            .filter(|n| **n != o.name)
            .collect();
        let name19 = match n19.iter().next() {
            Some(n) => format!("Some({n:?})"),
            None => "None".to_owned(),
        };
        let slots: Vec<String> = o
            .slots
            .iter()
            .map(|s| {
                format!(
                    "s({}, {}, {}, {}, {}, {})",
                    s.field, s.kind, s.ty, s.dwords, s.access, s.consts
                )
            })
            .collect();
        let _ = writeln!(
            body,
            "    Row {{ family: {:?}, opcode: {:#x}, name: {:?}, name19: {name19}, slots: &[{}], zero: &[{}], procs: {set}, llvm: {llvm} }},",
            o.family,
            o.opcode,
            o.name,
            slots.join(", "),
            o.zero.join(", ")
        );
    }
    let mut out = String::from(
        "//! Scalar opcode rows (SOP1, SOP2, SOPK, SOPC, SOPP): data written by\n\
         //! `cargo run --release --example isa_rows` from what libLLVM 22 and 19\n\
         //! decode; do not edit by hand (change the example and run it again).\n\n\
         #![allow(clippy::all)]\n\n\
         use crate::isa::operand::OpType::*;\n\
         use crate::isa::table::{Access::*, Family::*, Field::*, Kind::*, Llvm::*, Row, Slot};\n\
         use crate::isa::{Access, Field, Kind, OpType};\n\n\
         const fn s(field: Field, kind: Kind, ty: OpType, dwords: u8, access: Access, consts: bool) -> Slot {\n    \
         Slot { field, kind, ty, dwords, access, consts }\n}\n\n",
    );
    let mut by_name: Vec<(&String, &Vec<&str>)> = sets.iter().map(|(k, v)| (v, k)).collect();
    by_name.sort_by_key(|(n, _)| n[1..].parse::<usize>().unwrap_or(0));
    for (name, procs) in by_name {
        let _ = writeln!(out, "static {name}: &[&str] = &{procs:?};");
    }
    let _ = writeln!(out, "\n/// The scalar rows.\npub static ROWS: &[Row] = &[");
    out.push_str(&body);
    out.push_str("];\n");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("oracle/src/isa/rows/scalar.rs");
    if check {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != out {
            eprintln!(
                "isa_rows: {} differs from what LLVM decodes",
                path.display()
            );
            std::process::exit(1);
        }
        eprintln!("isa_rows: {} agrees", path.display());
    } else {
        std::fs::write(&path, out).expect("write rows");
        eprintln!(
            "isa_rows: wrote {} ({} rows, {} processor sets)",
            path.display(),
            rows.len(),
            sets.len()
        );
    }
    for c in &crashes {
        eprintln!("isa_rows: {c}");
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let _ = (OpType::B32, Kind::Reg);
}
