//! ELF note records: the layout rules every note obeys, and which notes a
//! code object of each version must carry.
//!
//! Sources: amdgpu-usage.rst "Note Records" (V2 and V3 tables); NOTES.md
//! "Metadata"; LLVM `llvm/include/llvm/Object/ELF.h` (how readers align
//! notes) and `llvm/include/llvm/BinaryFormat/ELF.h` (note types).

use crate::elf::{self, Elf, SHT_NOTE};
use crate::rules::Sink;
use crate::targets::CodeObjectVersion;

crate::declare_rules! {
    SECTION_ALIGN = (Error, "note.section.align",
        "A note section's sh_addralign is 4 or 8 (LLVM's reader rejects other values); AMDGPU writes 4.",
        "amdgpu-usage.rst: Note Records; llvm/include/llvm/Object/ELF.h (notes)");
    TRUNCATED = (Error, "note.truncated",
        "Each note's 12-byte header, name and description fit inside its section.",
        "ELF gABI: Note Section");
    NAME_TERMINATOR = (Error, "note.name.terminator",
        "A note's name is namesz bytes including one terminating NUL, and has no other NUL.",
        "ELF gABI: Note Section; amdgpu-usage.rst: Note Records");
    PADDING = (Warning, "note.padding",
        "The padding after a note's name and after its description (to the note alignment) is zero bytes.",
        "amdgpu-usage.rst: Note Records (minimal zero-byte padding)");
    METADATA_MISSING = (Error, "note.metadata.missing",
        "A code object V3 or later for the HSA OS has exactly one NT_AMDGPU_METADATA (32) note with owner \"AMDGPU\".",
        "amdgpu-usage.rst: Code Object V3 Note Records; NOTES.md: Metadata");
    METADATA_DUPLICATE = (Error, "note.metadata.duplicate",
        "There is at most one NT_AMDGPU_METADATA note.",
        "amdgpu-usage.rst: Code Object V3 Note Records");
    OWNER_TYPE = (Info, "note.unknown",
        "A note whose owner and type this ABI does not define is reported for information (the ABI says undocumented notes are deprecated).",
        "amdgpu-usage.rst: Note Records (additional note records ... deprecated)");
}

/// `NT_AMDGPU_METADATA`: MessagePack metadata (code object V3+).
pub const NT_AMDGPU_METADATA: u32 = 32;
/// `NT_AMD_HSA_CODE_OBJECT_VERSION` (V2, owner "AMD").
pub const NT_AMD_HSA_CODE_OBJECT_VERSION: u32 = 1;
/// `NT_AMD_HSA_HSAIL` (V2, owner "AMD").
pub const NT_AMD_HSA_HSAIL: u32 = 2;
/// `NT_AMD_HSA_ISA_VERSION` (V2, owner "AMD").
pub const NT_AMD_HSA_ISA_VERSION: u32 = 3;
/// `NT_AMD_HSA_METADATA`: YAML metadata (V2, owner "AMD").
pub const NT_AMD_HSA_METADATA: u32 = 10;
/// `NT_AMD_HSA_ISA_NAME` (V2, owner "AMD").
pub const NT_AMD_HSA_ISA_NAME: u32 = 11;
/// `NT_AMD_PAL_METADATA` (owner "AMD").
pub const NT_AMD_PAL_METADATA: u32 = 12;

/// One note record.
#[derive(Debug, Clone)]
pub struct Note<'a> {
    /// Owner name without the terminating NUL (lossy if not UTF-8).
    pub name: String,
    /// `n_type`.
    pub n_type: u32,
    /// The description bytes.
    pub desc: &'a [u8],
    /// File offset of the note header.
    pub offset: u64,
    /// File offset of the description.
    pub desc_offset: u64,
}

/// Reads every note of every note section (or, in a file without section
/// headers, of every `PT_NOTE` segment), checking the layout rules.
pub fn read<'a>(elf: &Elf<'a>, sink: &mut Sink) -> Vec<Note<'a>> {
    let mut out = Vec::new();
    let mut areas: Vec<(u64, u64, u64, String)> = Vec::new();
    for s in elf.sections.iter().filter(|s| s.sh_type == SHT_NOTE) {
        areas.push((
            s.offset,
            s.size,
            s.addralign,
            format!("section '{}'", s.name),
        ));
    }
    if elf.sections.is_empty() {
        for (i, p) in elf
            .segments
            .iter()
            .enumerate()
            .filter(|(_, p)| p.p_type == elf::PT_NOTE)
        {
            areas.push((p.offset, p.filesz, p.align, format!("PT_NOTE segment {i}")));
        }
    }
    for (off, size, align, what) in areas {
        let align = match align {
            4 | 8 => align,
            // The ELF reader in LLVM treats 0 and 1 as 4.
            0 | 1 => 4,
            _ => {
                sink.report_at(
                    &SECTION_ALIGN,
                    off,
                    format!("{what} has alignment {align}; notes must be aligned to 4 or 8"),
                );
                continue;
            }
        };
        // Bounds were reported by the ELF layer; skip unreadable areas.
        let Some(bytes) = elf::range(elf.data, off, size) else {
            continue;
        };
        read_area(bytes, off, align as usize, &what, sink, &mut out);
    }
    out
}

fn align_up(v: usize, a: usize) -> Option<usize> {
    v.checked_add(a - 1).map(|x| x & !(a - 1))
}

fn read_area<'a>(
    bytes: &'a [u8],
    base: u64,
    align: usize,
    what: &str,
    sink: &mut Sink,
    out: &mut Vec<Note<'a>>,
) {
    let mut pos = 0usize;
    while pos < bytes.len() {
        let at = base + pos as u64;
        let (Some(namesz), Some(descsz), Some(n_type)) = (
            elf::le_u32(bytes, pos),
            elf::le_u32(bytes, pos + 4),
            elf::le_u32(bytes, pos + 8),
        ) else {
            sink.report_at(
                &TRUNCATED,
                at,
                format!(
                    "{what}: {} bytes left at the end, too few for a 12-byte note header",
                    bytes.len() - pos
                ),
            );
            return;
        };
        let name_start = pos + 12;
        let name_end = name_start.checked_add(namesz as usize);
        let desc_start = name_end.and_then(|e| align_up(e, align));
        let desc_end = desc_start.and_then(|s| s.checked_add(descsz as usize));
        let next = desc_end.and_then(|e| align_up(e, align));
        let (Some(name_end), Some(desc_start), Some(desc_end)) = (name_end, desc_start, desc_end)
        else {
            sink.report_at(&TRUNCATED, at, format!("{what}: note sizes overflow"));
            return;
        };
        if desc_end > bytes.len() {
            sink.report_at(
                &TRUNCATED,
                at,
                format!(
                    "{what}: note with namesz {namesz} and descsz {descsz} ends at byte {desc_end} of a {}-byte area",
                    bytes.len()
                ),
            );
            return;
        }
        let raw_name = &bytes[name_start..name_end];
        let name = match raw_name.split_last() {
            Some((0, body)) if !body.contains(&0) => String::from_utf8_lossy(body).into_owned(),
            _ => {
                sink.report_at(
                    &NAME_TERMINATOR,
                    at,
                    format!(
                        "{what}: note name {:?} (namesz {namesz}) is not one NUL-terminated string",
                        String::from_utf8_lossy(raw_name)
                    ),
                );
                String::from_utf8_lossy(raw_name)
                    .trim_end_matches('\0')
                    .to_owned()
            }
        };
        // Padding after the name, and after the description up to the next
        // note (or the end of the area, whichever comes first).
        let pad_end = next.unwrap_or(bytes.len()).min(bytes.len());
        let pads = [(name_end, desc_start), (desc_end, pad_end)];
        if pads
            .iter()
            .any(|&(a, b)| bytes.get(a..b).is_some_and(|p| p.iter().any(|&x| x != 0)))
        {
            sink.report_at(
                &PADDING,
                at,
                format!("{what}: note '{name}' type {n_type} has non-zero padding bytes"),
            );
        }
        out.push(Note {
            name,
            n_type,
            desc: &bytes[desc_start..desc_end],
            offset: at,
            desc_offset: base + desc_start as u64,
        });
        match next {
            Some(n) if n > pos => pos = n,
            _ => return,
        }
    }
}

/// Checks which notes are present for the code object version; returns
/// the metadata note (the first, if duplicated).
pub fn check_set<'n, 'a>(
    notes: &'n [Note<'a>],
    cov: CodeObjectVersion,
    sink: &mut Sink,
) -> Option<&'n Note<'a>> {
    let mut metadata: Option<&Note> = None;
    for n in notes {
        let known = match (n.name.as_str(), n.n_type) {
            ("AMDGPU", NT_AMDGPU_METADATA) => {
                if metadata.is_some() {
                    sink.report_at(
                        &METADATA_DUPLICATE,
                        n.offset,
                        "a second NT_AMDGPU_METADATA note",
                    );
                } else {
                    metadata = Some(n);
                }
                true
            }
            ("AMD", t) => {
                // The V2 note set; in V3+ objects LLVM writes none of these,
                // but the ABI only deprecates them.
                matches!(
                    t,
                    NT_AMD_HSA_CODE_OBJECT_VERSION
                        | NT_AMD_HSA_HSAIL
                        | NT_AMD_HSA_ISA_VERSION
                        | NT_AMD_HSA_METADATA
                        | NT_AMD_HSA_ISA_NAME
                        | NT_AMD_PAL_METADATA
                ) && cov == CodeObjectVersion::V2
            }
            _ => false,
        };
        if !known {
            sink.report_at(
                &OWNER_TYPE,
                n.offset,
                format!(
                    "note owner \"{}\" type {} is not defined for code object {cov}",
                    n.name, n.n_type
                ),
            );
        }
    }
    if cov >= CodeObjectVersion::V3 && metadata.is_none() {
        sink.report(
            &METADATA_MISSING,
            format!(
                "no NT_AMDGPU_METADATA note (owner \"AMDGPU\", type 32) in this {cov} code object"
            ),
        );
    }
    metadata
}
