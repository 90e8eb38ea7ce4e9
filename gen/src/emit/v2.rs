//! Code object V2 emitters: the ELF bytes (laid out as `ld.lld-19
//! -shared` lays out what `llvm-mc-14 --amdhsa-code-object-version=2`
//! assembles), the LLVM 14 assembler text that rebuilds them, and the YAML
//! metadata text exactly as LLVM 14's `HSAMD::toString` writes it.
//!
//! The layout (observed with `llc-14 ... | ld.lld-19 -shared`): ELF header
//! (EI_ABIVERSION 0); eight program headers as for V3+; `.note` with the
//! four "AMD" notes in LLVM's order (`NT_AMD_HSA_CODE_OBJECT_VERSION` 2.1,
//! `NT_AMD_HSA_ISA_VERSION`, `NT_AMD_HSA_ISA_NAME` without a NUL,
//! `NT_AMD_HSA_METADATA`); `.dynsym`, `.gnu.hash`, `.hash`, `.dynstr`
//! (each kernel symbol exported: global, default visibility, type
//! `STT_AMDGPU_HSA_KERNEL`); no `.rodata`; `.text` on a new page, each
//! kernel 256-byte aligned: its `amd_kernel_code_t`, then its code at byte
//! 256, gaps filled with `s_nop 0`; `.dynamic` and `.relro_padding`; then
//! `.symtab`, `.shstrtab`, `.strtab`. lld's `.comment` is not written (as
//! in [`crate::emit::elf`]).
//!
//! [`Image`] is the object before it is laid out: mutators change notes,
//! `amd_kernel_code_t` bytes, placement or symbols there and write it.

use super::elf::S_NOP_0;
use super::lld::{Export, Index, SharedObject};
use super::writer::{align, pad_to, put_note};
use crate::object::{s_endpgm, CodeObject};
use crate::v2::{self, Yaml};
use hsaco_oracle::elf::raw::{STB_GLOBAL, STV_DEFAULT};
use hsaco_oracle::kernel_code::KernelCode;
use hsaco_oracle::notes::{
    NT_AMD_HSA_CODE_OBJECT_VERSION, NT_AMD_HSA_ISA_NAME, NT_AMD_HSA_ISA_VERSION,
    NT_AMD_HSA_METADATA,
};
use hsaco_oracle::targets::CodeObjectVersion;
use std::fmt::Write as _;

pub use hsaco_oracle::elf::raw::STT_AMDGPU_HSA_KERNEL;

/// Section indices in the output (the shared-object layout without
/// `.rodata`).
pub mod idx {
    use super::Index;

    const I: Index = Index::new(false);
    /// `.note`.
    pub const NOTE: u16 = I.note;
    /// `.dynsym`.
    pub const DYNSYM: u16 = I.dynsym;
    /// `.gnu.hash`.
    pub const GNU_HASH: u16 = I.gnu_hash;
    /// `.hash`.
    pub const HASH: u16 = I.hash;
    /// `.dynstr`.
    pub const DYNSTR: u16 = I.dynstr;
    /// `.text`.
    pub const TEXT: u16 = I.text;
    /// `.dynamic`.
    pub const DYNAMIC: u16 = I.dynamic;
    /// `.relro_padding`.
    pub const RELRO_PADDING: u16 = I.relro_padding;
    /// `.symtab`.
    pub const SYMTAB: u16 = I.symtab;
    /// `.shstrtab`.
    pub const SHSTRTAB: u16 = I.shstrtab;
    /// `.strtab`.
    pub const STRTAB: u16 = I.strtab;
    /// Number of sections.
    pub const COUNT: u16 = I.count;
}

/// One note record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// Owner name without its NUL (`AMD`); the writer adds the NUL.
    pub name: Vec<u8>,
    /// `n_type`.
    pub n_type: u32,
    /// Description.
    pub desc: Vec<u8>,
}

impl Note {
    /// An "AMD" note.
    pub fn amd(n_type: u32, desc: Vec<u8>) -> Note {
        Note {
            name: b"AMD".to_vec(),
            n_type,
            desc,
        }
    }

    /// The record: header, name with NUL and description, each padded to 4.
    pub fn record(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(12 + self.name.len() + self.desc.len() + 8);
        self.write_to(&mut v);
        v
    }

    /// Appends the record to `v` (which holds whole records).
    pub fn write_to(&self, v: &mut Vec<u8>) {
        put_note(v, &self.name, self.n_type, &self.desc);
    }
}

/// `NT_AMD_HSA_CODE_OBJECT_VERSION` 2.1.
pub fn version_note() -> Note {
    let mut d = 2u32.to_le_bytes().to_vec();
    d.extend_from_slice(&1u32.to_le_bytes());
    Note::amd(NT_AMD_HSA_CODE_OBJECT_VERSION, d)
}

/// `NT_AMD_HSA_ISA_VERSION`: name sizes 4 and 7, the version, `AMD\0`,
/// `AMDGPU\0`.
pub fn isa_version_note(v: [u32; 3]) -> Note {
    let mut d = Vec::with_capacity(27);
    d.extend_from_slice(&4u16.to_le_bytes());
    d.extend_from_slice(&7u16.to_le_bytes());
    for x in v {
        d.extend_from_slice(&x.to_le_bytes());
    }
    d.extend_from_slice(b"AMD\0AMDGPU\0");
    Note::amd(NT_AMD_HSA_ISA_VERSION, d)
}

/// One kernel of the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelBlock {
    /// Symbol name.
    pub name: String,
    /// The `amd_kernel_code_t`.
    pub header: KernelCode,
    /// Bytes between the 256-byte boundary and the `amd_kernel_code_t`
    /// (0 as LLVM places it); the code starts at the next 256-byte
    /// boundary after the structure either way.
    pub skew: u64,
    /// Machine code words.
    pub code: Vec<u32>,
}

/// A V2 code object before layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// `e_flags`.
    pub e_flags: u32,
    /// The `.note` records in order.
    pub notes: Vec<Note>,
    /// Kernels in `.text` and symbol order.
    pub kernels: Vec<KernelBlock>,
    /// Kernels (by index) whose symbol `.symtab` holds a second time (a
    /// duplicate definition, for mutants).
    pub duplicate_symbols: Vec<usize>,
}

impl Image {
    /// The image LLVM 14 and lld make of `co`.
    pub fn from_object(co: &CodeObject) -> Image {
        let tc = &co.target;
        let yaml = v2::metadata_doc(co).to_text();
        Image {
            e_flags: tc.e_flags(),
            notes: vec![
                version_note(),
                isa_version_note(v2::isa_version(tc)),
                Note::amd(NT_AMD_HSA_ISA_NAME, v2::isa_name(tc).into_bytes()),
                Note::amd(NT_AMD_HSA_METADATA, yaml.into_bytes()),
            ],
            kernels: co
                .kernels
                .iter()
                .map(|k| KernelBlock {
                    name: k.name.clone(),
                    header: v2::kernel_code(tc, k),
                    skew: 0,
                    code: k.code.clone(),
                })
                .collect(),
            duplicate_symbols: Vec::new(),
        }
    }

    /// The first note of type `n_type`.
    pub fn note_mut(&mut self, n_type: u32) -> Option<&mut Note> {
        self.notes.iter_mut().find(|n| n.n_type == n_type)
    }

    /// Where each kernel's `amd_kernel_code_t` and code start in `.text`,
    /// and the section's size.
    pub fn text_layout(&self) -> (Vec<(u64, u64)>, u64) {
        let mut out = Vec::with_capacity(self.kernels.len());
        let mut end = 0u64;
        for k in &self.kernels {
            let start = align(end, 256) + k.skew;
            let code = align(start + 256, 256);
            out.push((start, code));
            end = code + 4 * k.code.len() as u64;
        }
        (out, end)
    }

    /// Writes the linked shared object.
    pub fn write(&self) -> Vec<u8> {
        write(self)
    }
}

/// The metadata YAML of `co` (the `NT_AMD_HSA_METADATA` description).
pub fn metadata_bytes(co: &CodeObject) -> Vec<u8> {
    v2::metadata_doc(co).to_text().into_bytes()
}

/// The ELF bytes of the V2 object `co`.
pub fn elf_bytes(co: &CodeObject) -> Vec<u8> {
    Image::from_object(co).write()
}

fn write(img: &Image) -> Vec<u8> {
    let mut notes: Vec<u8> = Vec::with_capacity(
        img.notes
            .iter()
            .map(|n| n.desc.len() + n.name.len() + 20)
            .sum(),
    );
    for n in &img.notes {
        n.write_to(&mut notes);
    }
    let (text_offs, text_size) = img.text_layout();
    // Each kernel symbol covers its amd_kernel_code_t and its code.
    let exports = img
        .kernels
        .iter()
        .zip(&text_offs)
        .map(|(k, &(start, code))| Export {
            name: &k.name,
            info: STB_GLOBAL << 4 | STT_AMDGPU_HSA_KERNEL,
            other: STV_DEFAULT,
            in_rodata: false,
            offset: start,
            size: code + 4 * k.code.len() as u64 - start,
        })
        .collect();
    let so = SharedObject {
        abi_version: CodeObjectVersion::V2.abi_version(),
        e_flags: img.e_flags,
        notes: &notes,
        exports,
        rodata_size: None,
        text_size,
        symtab_repeats: &img.duplicate_symbols,
    };
    // .text: each amd_kernel_code_t and its code, gaps filled with s_nop 0.
    let mut text = Vec::with_capacity(text_size as usize);
    for (k, &(start, code)) in img.kernels.iter().zip(&text_offs) {
        while (text.len() as u64) < start {
            text.extend_from_slice(&S_NOP_0.to_le_bytes());
        }
        // A skew that is not a multiple of 4 pads with zero bytes.
        pad_to(&mut text, start);
        text.extend_from_slice(&k.header.to_bytes());
        while (text.len() as u64) < code {
            text.extend_from_slice(&S_NOP_0.to_le_bytes());
        }
        for w in &k.code {
            text.extend_from_slice(&w.to_le_bytes());
        }
    }
    so.write(&[], &text)
}

// ---------------------------------------------------------------------------
// YAML text.

/// How LLVM's YAML writer quotes a string scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Quote {
    None,
    Single,
    Double,
}

/// YAML 1.2 core-schema numbers as LLVM's writer recognises them: decimal
/// integers and floats with optional sign and exponent, `0o` and `0x`
/// integers, `.inf` and `.nan` spellings.
fn is_numeric(s: &str) -> bool {
    if s.is_empty() || s == "+" || s == "-" {
        return false;
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let tail = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(tail, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if let Some(r) = s.strip_prefix("0o") {
        return !r.is_empty() && r.bytes().all(|b| (b'0'..=b'7').contains(&b));
    }
    if let Some(r) = s.strip_prefix("0x") {
        return !r.is_empty() && r.bytes().all(|b| b.is_ascii_hexdigit());
    }
    let b = tail.as_bytes();
    let digits = |mut i: usize| {
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    if b.first() == Some(&b'.') && !b.get(1).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    if matches!(b.first(), Some(b'e' | b'E')) {
        return false;
    }
    let mut i = digits(0);
    if i == b.len() {
        return true;
    }
    if b[i] == b'.' {
        i = digits(i + 1);
        if i == b.len() {
            return true;
        }
    }
    if !matches!(b.get(i), Some(b'e' | b'E')) {
        return false;
    }
    i += 1;
    if matches!(b.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    i < b.len() && digits(i) == b.len()
}

/// The quoting LLVM 14's `yaml::needsQuotes` gives `s` (see
/// `llvm/Support/YAMLTraits.h`).
fn quoting(s: &str) -> Quote {
    let b = s.as_bytes();
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return Quote::Single;
    };
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let mut q = Quote::None;
    if space(first)
        || space(last)
        || matches!(s, "null" | "Null" | "NULL" | "~")
        || matches!(s, "true" | "True" | "TRUE" | "false" | "False" | "FALSE")
        || is_numeric(s)
        || br#"-?:\,[]{}#&*!|>'"%@`"#.contains(&first)
    {
        q = Quote::Single;
    }
    for &c in b {
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'^' | b'.' | b',' | b' ' | b'\t')
        {
            continue;
        }
        if matches!(c, b'\n' | b'\r' | 0x7f) || c <= 0x1f || c & 0x80 != 0 {
            return Quote::Double;
        }
        q = Quote::Single;
    }
    q
}

fn scalar(out: &mut String, s: &str) {
    match quoting(s) {
        Quote::None => out.push_str(s),
        Quote::Single => {
            out.push('\'');
            out.push_str(&s.replace('\'', "''"));
            out.push('\'');
        }
        Quote::Double => {
            // The generators write no such strings; this keeps the text
            // valid YAML if a caller does.
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push('\t'),
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                        let _ = write!(out, "\\x{:02X}", c as u32);
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
        }
    }
}

/// Appends `v` in decimal (without `fmt`, which costs several times more
/// per number here).
fn push_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend(buf[i..].iter().map(|&d| char::from(d)));
}

fn indent(out: &mut String, n: usize) {
    const SPACES: &str = "                                                                ";
    let mut n = n;
    while n > 0 {
        let k = n.min(SPACES.len());
        out.push_str(&SPACES[..k]);
        n -= k;
    }
}

fn is_block(y: &Yaml) -> bool {
    match y {
        Yaml::Map(m) => !m.is_empty(),
        Yaml::Seq(s) => !s.is_empty(),
        _ => false,
    }
}

fn inline(out: &mut String, y: &Yaml) {
    match y {
        Yaml::Str(s) => scalar(out, s),
        Yaml::UInt(v) => push_u64(out, *v),
        Yaml::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Yaml::Raw(r) => out.push_str(r),
        Yaml::Flow(v) => {
            if v.is_empty() {
                out.push_str("[  ]");
            } else {
                out.push_str("[ ");
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    push_u64(out, *x);
                }
                out.push_str(" ]");
            }
        }
        Yaml::Map(_) => out.push_str("{  }"),
        Yaml::Seq(_) => out.push_str("[  ]"),
    }
}

/// Writes the entries of a mapping whose keys start at column `col`; the
/// first key goes where the cursor is when `first_inline` (after `- `).
fn map_entries(out: &mut String, m: &[(v2::Key, Yaml)], col: usize, first_inline: bool) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 || !first_inline {
            indent(out, col);
        }
        out.push_str(k);
        out.push(':');
        if is_block(v) {
            out.push('\n');
            block(out, v, col + 2);
        } else {
            // LLVM pads keys shorter than 16 bytes to 16, then one space
            // at least.
            indent(out, 16usize.saturating_sub(k.len()).max(1));
            inline(out, v);
            out.push('\n');
        }
    }
}

/// Writes a non-empty block collection whose items start at column `col`.
fn block(out: &mut String, y: &Yaml, col: usize) {
    match y {
        Yaml::Map(m) => map_entries(out, m, col, false),
        Yaml::Seq(items) => {
            for item in items {
                indent(out, col);
                out.push_str("- ");
                match item {
                    Yaml::Map(m) if !m.is_empty() => map_entries(out, m, col + 2, true),
                    other => {
                        inline(out, other);
                        out.push('\n');
                    }
                }
            }
        }
        other => {
            indent(out, col);
            inline(out, other);
            out.push('\n');
        }
    }
}

impl Yaml {
    /// The document as LLVM 14's `yaml::Output` writes it: `---`, the
    /// block mapping (keys padded to 16 columns, strings quoted as
    /// `needsQuotes` says, integer lists in flow style), `...`.
    pub fn to_text(&self) -> String {
        // Room for most documents: growing copies the text.
        let mut out = String::with_capacity(8192);
        out.push_str("---\n");
        match self {
            Yaml::Map(m) if !m.is_empty() => map_entries(&mut out, m, 0, false),
            other => block(&mut out, other, 0),
        }
        out.push_str("...\n");
        out
    }
}

// ---------------------------------------------------------------------------
// Assembler text.

/// Arguments for `llvm-mc-14` that assemble the text of `co` (append the
/// input and `-o OUTPUT`).
pub fn llvm_mc_args(co: &CodeObject) -> Vec<String> {
    let t = &co.target;
    let mut v = vec![
        "-triple=amdgcn-amd-amdhsa".to_owned(),
        format!("-mcpu={}", t.target().name),
    ];
    let mattr = t.mattr();
    if !mattr.is_empty() {
        v.push(format!("-mattr={mattr}"));
    }
    v.push("--amdhsa-code-object-version=2".to_owned());
    v.push("-filetype=obj".to_owned());
    v
}

/// The `.amd_kernel_code_t` block of `c`: every field LLVM 14's parser
/// knows, in the order `llc-14` prints them.
pub fn kernel_code_block(s: &mut String, c: &KernelCode) {
    let r1 = c.compute_pgm_rsrc1;
    let r2 = c.compute_pgm_rsrc2;
    let p = c.code_properties;
    let bits = |w: u32, at: u32, n: u32| u64::from(w >> at & ((1u32 << n) - 1));
    let fields: &[(&str, i64)] = &[
        (
            "amd_code_version_major",
            c.amd_kernel_code_version_major.into(),
        ),
        (
            "amd_code_version_minor",
            c.amd_kernel_code_version_minor.into(),
        ),
        ("amd_machine_kind", c.amd_machine_kind.into()),
        (
            "amd_machine_version_major",
            c.amd_machine_version_major.into(),
        ),
        (
            "amd_machine_version_minor",
            c.amd_machine_version_minor.into(),
        ),
        (
            "amd_machine_version_stepping",
            c.amd_machine_version_stepping.into(),
        ),
        (
            "kernel_code_entry_byte_offset",
            c.kernel_code_entry_byte_offset,
        ),
        (
            "kernel_code_prefetch_byte_size",
            c.kernel_code_prefetch_byte_size as i64,
        ),
        ("granulated_workitem_vgpr_count", bits(r1, 0, 6) as i64),
        ("granulated_wavefront_sgpr_count", bits(r1, 6, 4) as i64),
        ("priority", bits(r1, 10, 2) as i64),
        ("float_mode", bits(r1, 12, 8) as i64),
        ("priv", bits(r1, 20, 1) as i64),
        ("enable_dx10_clamp", bits(r1, 21, 1) as i64),
        ("debug_mode", bits(r1, 22, 1) as i64),
        ("enable_ieee_mode", bits(r1, 23, 1) as i64),
        ("enable_wgp_mode", bits(r1, 29, 1) as i64),
        ("enable_mem_ordered", bits(r1, 30, 1) as i64),
        ("enable_fwd_progress", bits(r1, 31, 1) as i64),
        (
            "enable_sgpr_private_segment_wave_byte_offset",
            bits(r2, 0, 1) as i64,
        ),
        ("user_sgpr_count", bits(r2, 1, 5) as i64),
        ("enable_trap_handler", bits(r2, 6, 1) as i64),
        ("enable_sgpr_workgroup_id_x", bits(r2, 7, 1) as i64),
        ("enable_sgpr_workgroup_id_y", bits(r2, 8, 1) as i64),
        ("enable_sgpr_workgroup_id_z", bits(r2, 9, 1) as i64),
        ("enable_sgpr_workgroup_info", bits(r2, 10, 1) as i64),
        ("enable_vgpr_workitem_id", bits(r2, 11, 2) as i64),
        ("enable_exception_msb", bits(r2, 13, 2) as i64),
        ("granulated_lds_size", bits(r2, 15, 9) as i64),
        ("enable_exception", bits(r2, 24, 7) as i64),
        ("enable_sgpr_private_segment_buffer", bits(p, 0, 1) as i64),
        ("enable_sgpr_dispatch_ptr", bits(p, 1, 1) as i64),
        ("enable_sgpr_queue_ptr", bits(p, 2, 1) as i64),
        ("enable_sgpr_kernarg_segment_ptr", bits(p, 3, 1) as i64),
        ("enable_sgpr_dispatch_id", bits(p, 4, 1) as i64),
        ("enable_sgpr_flat_scratch_init", bits(p, 5, 1) as i64),
        ("enable_sgpr_private_segment_size", bits(p, 6, 1) as i64),
        ("enable_sgpr_grid_workgroup_count_x", bits(p, 7, 1) as i64),
        ("enable_sgpr_grid_workgroup_count_y", bits(p, 8, 1) as i64),
        ("enable_sgpr_grid_workgroup_count_z", bits(p, 9, 1) as i64),
        ("enable_wavefront_size32", bits(p, 10, 1) as i64),
        ("enable_ordered_append_gds", bits(p, 16, 1) as i64),
        ("private_element_size", bits(p, 17, 2) as i64),
        ("is_ptr64", bits(p, 19, 1) as i64),
        ("is_dynamic_callstack", bits(p, 20, 1) as i64),
        ("is_debug_enabled", bits(p, 21, 1) as i64),
        ("is_xnack_enabled", bits(p, 22, 1) as i64),
        (
            "workitem_private_segment_byte_size",
            c.workitem_private_segment_byte_size.into(),
        ),
        (
            "workgroup_group_segment_byte_size",
            c.workgroup_group_segment_byte_size.into(),
        ),
        ("gds_segment_byte_size", c.gds_segment_byte_size.into()),
        (
            "kernarg_segment_byte_size",
            c.kernarg_segment_byte_size as i64,
        ),
        (
            "workgroup_fbarrier_count",
            c.workgroup_fbarrier_count.into(),
        ),
        ("wavefront_sgpr_count", c.wavefront_sgpr_count.into()),
        ("workitem_vgpr_count", c.workitem_vgpr_count.into()),
        ("reserved_vgpr_first", c.reserved_vgpr_first.into()),
        ("reserved_vgpr_count", c.reserved_vgpr_count.into()),
        ("reserved_sgpr_first", c.reserved_sgpr_first.into()),
        ("reserved_sgpr_count", c.reserved_sgpr_count.into()),
        (
            "debug_wavefront_private_segment_offset_sgpr",
            c.debug_wavefront_private_segment_offset_sgpr.into(),
        ),
        (
            "debug_private_segment_buffer_sgpr",
            c.debug_private_segment_buffer_sgpr.into(),
        ),
        (
            "kernarg_segment_alignment",
            c.kernarg_segment_alignment.into(),
        ),
        ("group_segment_alignment", c.group_segment_alignment.into()),
        (
            "private_segment_alignment",
            c.private_segment_alignment.into(),
        ),
        ("wavefront_size", c.wavefront_size.into()),
        ("call_convention", c.call_convention.into()),
        (
            "runtime_loader_kernel_symbol",
            c.runtime_loader_kernel_symbol as i64,
        ),
    ];
    s.push_str("\t.amd_kernel_code_t\n");
    for (name, v) in fields {
        let _ = writeln!(s, "\t\t{name} = {v}");
    }
    s.push_str("\t.end_amd_kernel_code_t\n");
}

/// The LLVM 14 assembler text of the V2 object `co`.
pub fn asm(co: &CodeObject) -> String {
    let tc = &co.target;
    let t = tc.target();
    let mut s = String::with_capacity(8192);
    let [a, b, c] = v2::isa_version(tc);
    let _ = write!(
        s,
        "\t.hsa_code_object_version 2,1\n\t.hsa_code_object_isa {a},{b},{c},\"AMD\",\"AMDGPU\"\n\t.text\n"
    );
    for (i, k) in co.kernels.iter().enumerate() {
        let n = &k.name;
        let _ = write!(
            s,
            "\t.globl\t{n}\n\t.p2align\t8\n\t.type\t{n},@function\n\t.amdgpu_hsa_kernel {n}\n{n}:\n"
        );
        kernel_code_block(&mut s, &v2::kernel_code(tc, k));
        for &w in &k.code {
            if w == s_endpgm(t) {
                s.push_str("\ts_endpgm\n");
            } else {
                // llvm-mc-14's SMEM syntax differs from LLVM 19's; the
                // words are written as data.
                let _ = writeln!(s, "\t.long\t{w:#010x}");
            }
        }
        let _ = writeln!(s, ".Lfunc_end{i}:\n\t.size\t{n}, .Lfunc_end{i}-{n}");
    }
    // The ISA name note comes from its own directive (llc-14 writes it
    // just before the metadata).
    let _ = writeln!(s, "\t.amd_amdgpu_isa \"{}\"", v2::isa_name(tc));
    s.push_str("\t.amd_amdgpu_hsa_metadata\n");
    s.push_str(&v2::metadata_doc(co).to_text());
    s.push_str("\t.end_amd_amdgpu_hsa_metadata\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_like_llvm14() {
        for (s, q) in [
            ("k", Quote::None),
            ("OpenCL C", Quote::None),
            ("k.runtime_handle", Quote::None),
            ("k@kd", Quote::Single),
            ("int*", Quote::Single),
            ("OpenCL C++", Quote::Single),
            ("1:1:4:%d", Quote::Single),
            ("true", Quote::Single),
            ("Null", Quote::Single),
            ("12", Quote::Single),
            ("1.5e3", Quote::Single),
            (".inf", Quote::Single),
            ("0x1f", Quote::Single),
            ("e5", Quote::None),
            ("yes", Quote::None),
            ("", Quote::Single),
            (" a", Quote::Single),
            ("a\nb", Quote::Double),
        ] {
            assert_eq!(quoting(s), q, "{s:?}");
        }
    }

    #[test]
    fn yaml_layout_like_llvm14() {
        // The shape llvm-mc-14 writes back for `.amd_amdgpu_hsa_metadata`.
        let doc = Yaml::Map(vec![
            ("Version".into(), Yaml::Flow(vec![1, 0])),
            (
                "Printf".into(),
                Yaml::Seq(vec![Yaml::Str("1:1:4:%d".into())]),
            ),
            (
                "Kernels".into(),
                Yaml::Seq(vec![Yaml::Map(vec![
                    ("Name".into(), Yaml::Str("k".into())),
                    ("SymbolName".into(), Yaml::Str("k@kd".into())),
                    ("LanguageVersion".into(), Yaml::Flow(vec![2, 0])),
                    (
                        "Args".into(),
                        Yaml::Seq(vec![Yaml::Map(vec![
                            ("Size".into(), Yaml::UInt(8)),
                            ("AddrSpaceQual".into(), Yaml::Str("Global".into())),
                        ])]),
                    ),
                    (
                        "CodeProps".into(),
                        Yaml::Map(vec![
                            ("KernargSegmentSize".into(), Yaml::UInt(8)),
                            ("IsXNACKEnabled".into(), Yaml::Bool(true)),
                        ]),
                    ),
                ])]),
            ),
        ]);
        let want = "---
Version:         [ 1, 0 ]
Printf:
  - '1:1:4:%d'
Kernels:
  - Name:            k
    SymbolName:      'k@kd'
    LanguageVersion: [ 2, 0 ]
    Args:
      - Size:            8
        AddrSpaceQual:   Global
    CodeProps:
      KernargSegmentSize: 8
      IsXNACKEnabled:  true
...
";
        assert_eq!(doc.to_text(), want);
    }

    #[test]
    fn notes_like_llc14() {
        // llvm-readobj-19 -x .note of an llc-14 gfx900 object: version
        // note, ISA version 9.0.1.
        let v = version_note().record();
        assert_eq!(
            v,
            [4, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, b'A', b'M', b'D', 0, 2, 0, 0, 0, 1, 0, 0, 0]
        );
        let i = isa_version_note([9, 0, 1]);
        assert_eq!(i.desc.len(), 0x1b);
        assert_eq!(i.record().len(), 12 + 4 + 28);
    }
}
