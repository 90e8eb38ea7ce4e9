//! ELF note records: the layout rules every note obeys, and which notes a
//! code object of each version must carry.
//!
//! Sources: amdgpu-usage.rst "Note Records" (V2 and V3 tables); NOTES.md
//! "Metadata"; LLVM `llvm/include/llvm/Object/ELF.h` (how readers align
//! notes) and `llvm/include/llvm/BinaryFormat/ELF.h` (note types).
//!
//! Code object V2 notes (owner "AMD", [`check_v2`]): their layouts follow
//! ROCm's `amd_hsa_elf.h` (`amdgpu_hsa_note_*_t`) and `llvm-readobj`'s
//! decoder (`llvm/tools/llvm-readobj/ELFDumper.cpp`, `getAMDNote`); what
//! LLVM 14 writes (`AMDGPUTargetStreamer.cpp`, `AMDGPUTargetID::toString`)
//! was checked with `llc-14 --amdhsa-code-object-version=2` for every
//! processor it accepts (see [`v2_isa_version`]).

use crate::elf::raw::{from_bytes, NoteHeader, LE, NHDR_SIZE};
use crate::elf::{self, Elf, SHT_NOTE};
use crate::rules::Sink;
use crate::targets::{self, CodeObjectVersion, FeatureSetting, Generation, Target, TargetId};

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
        "A code object V3 or later for the HSA OS has at least one NT_AMDGPU_METADATA (32) note with owner \"AMDGPU\". An object may carry several: ld.lld concatenates the notes of the objects it links, and comgr (through which HIP's runtime reads metadata) merges them.",
        "amdgpu-usage.rst: Code Object V3 Note Records; NOTES.md: Metadata; ROCm comgr amd/comgr/src/comgr-metadata.cpp (getElfMetadataRoot, mergeNoteRecords)");
    METADATA_VERSION_CONFLICT = (Error, "note.metadata.version_conflict",
        "Every NT_AMDGPU_METADATA note of an object has the amdhsa.version of the first: comgr appends a later note's kernels only when both notes have equal version arrays, and otherwise drops that note, so its kernels cannot be found by name at run time.",
        "ROCm comgr amd/comgr/src/comgr-metadata.cpp (mergeNoteRecords)");
    METADATA_TARGET_CONFLICT = (Error, "note.metadata.target_conflict",
        "The NT_AMDGPU_METADATA notes of one object that name amdhsa.target all name the same target ID: a code object has one target, and ld.lld refuses to link objects whose e_flags name different ones.",
        "lld/ELF/Arch/AMDGPU.cpp (calcEFlags); amdgpu-usage.rst: Code Object V3 Metadata (amdhsa.target)");
    METADATA_PRINTF_CONFLICT = (Error, "note.metadata.printf_conflict",
        "At most one amdhsa.printf list per object: when two notes carry different lists no comgr reads them right. Older comgr (ROCm 5.2's, Debian's libamd-comgr2, among them) drops the later note and its kernels; the release that compared the lists crashes on the comparison (ROCm/llvm-project PR 1880); later comgr keeps the first list for every kernel, so the later note's format IDs print the wrong strings.",
        "ROCm comgr amd/comgr/src/comgr-metadata.cpp (mergeNoteRecords, three versions); ROCm/llvm-project pull request 1880; amdgpu-usage.rst: Code Object V3 Metadata (amdhsa.printf)");
    METADATA_PRINTF_REPEATED = (Warning, "note.metadata.printf_repeated",
        "Two notes carry the same amdhsa.printf list (LTO partitions share one): current comgr keeps one copy and merges the kernels, but older comgr (ROCm 5.2's, Debian's libamd-comgr2, among them) refuses to merge any two notes with printf lists and drops the later note with its kernels.",
        "ROCm comgr amd/comgr/src/comgr-metadata.cpp (mergeNoteRecords); ROCm/llvm-project pull request 1880; libamd-comgr2 2.4 (ROCm 5.2.3)");
    OWNER_TYPE = (Info, "note.unknown",
        "A note whose owner and type this ABI does not define is reported for information (the ABI says undocumented notes are deprecated).",
        "amdgpu-usage.rst: Note Records (additional note records ... deprecated)");
    CODE_OBJECT_V1 = (Info, "note.code_object_v1",
        "Code object V1, the HSAIL finalizer's format (EI_ABIVERSION 0 as V2, with an NT_AMD_HSA_CODE_OBJECT_VERSION note of major version 1; ROCr still embeds such blit kernels), is recognised but not modelled: nothing else is checked or claimed about it.",
        "ROCR-Runtime src/libamdhsacode/amd_hsa_code.cpp (GetCodeObjectVersion, notes read with 4-byte alignment); rocm-code-object-format.rst: Code Object Version");
    V2_MISSING = (Error, "note.v2.missing",
        "A code object V2 has NT_AMD_HSA_CODE_OBJECT_VERSION (1), NT_AMD_HSA_ISA_VERSION (3) and NT_AMD_HSA_METADATA (10) notes with owner \"AMD\": ROCm's loader takes the version and ISA from the first two (without the version note it treats the object as V3), and the metadata is required for amdhsa.",
        "amdgpu-usage.rst: Code Object V2 Note Records; ROCR-Runtime src/libamdhsacode/amd_hsa_code.cpp (GetCodeObjectVersion, GetIsa)");
    V2_ISA_NAME_MISSING = (Warning, "note.v2.isa_name.missing",
        "A code object V2 should have an NT_AMD_HSA_ISA_NAME (11) note, as LLVM always writes.",
        "llvm/lib/Target/AMDGPU/MCTargetDesc/AMDGPUTargetStreamer.cpp (EmitISAVersion); llc-14 --amdhsa-code-object-version=2");
    V2_DUPLICATE = (Error, "note.v2.duplicate",
        "A code object V2 has at most one \"AMD\" note of each type: readers take the first and ignore the rest.",
        "ROCR-Runtime src/libamdhsacode/amd_hsa_code.cpp (GetAmdNote)");
    V2_DESC_SIZE = (Error, "note.v2.desc_size",
        "An \"AMD\" note's description has its type's size: NT_AMD_HSA_CODE_OBJECT_VERSION 8 bytes, NT_AMD_HSA_HSAIL 12, NT_AMD_HSA_ISA_VERSION at least 16 plus the two name sizes (llvm-readobj calls anything else invalid).",
        "ROCR-Runtime src/inc/amd_hsa_elf.h (amdgpu_hsa_note_*_t); llvm/tools/llvm-readobj/ELFDumper.cpp (getAMDNote)");
    V2_CODE_OBJECT_VERSION = (Error, "note.v2.code_object_version",
        "NT_AMD_HSA_CODE_OBJECT_VERSION of a code object with EI_ABIVERSION 0 must have major version 2 (LLVM 14 writes 2.1; major version 1 is code object V1, note.code_object_v1): ROCm's loader picks the object layout from it.",
        "ROCR-Runtime src/libamdhsacode/amd_hsa_code.cpp (PullElf, GetIsa); llc-14 --amdhsa-code-object-version=2");
    V2_HSAIL = (Warning, "note.v2.hsail",
        "NT_AMD_HSA_HSAIL marks an object of the HSAIL finalizer (LLVM never writes it; ROCm's loader then reads e_flags differently); its profile should be 0 or 1, machine model 0 or 1 and default float rounding 0 to 2.",
        "ROCR-Runtime src/inc/amd_hsa_elf.h (amdgpu_hsa_note_hsail_t), src/libamdhsacode/amd_hsa_code.cpp (ConvertOldTargetNameToNew); hsa.h (hsa_profile_t, hsa_machine_model_t, hsa_default_float_rounding_mode_t)");
    V2_ISA_NAMES = (Error, "note.v2.isa_version.names",
        "NT_AMD_HSA_ISA_VERSION names vendor \"AMD\" and architecture \"AMDGPU\", each NUL-terminated and counted with its NUL in vendor_name_size (4) and architecture_name_size (7).",
        "rocm-code-object-format.rst: Instruction set architecture; ROCR-Runtime src/libamdhsacode/amd_hsa_code.cpp (AddNoteIsa, ConvertOldTargetNameToNew)");
    V2_ISA_MACH = (Error, "note.v2.isa_version.mach",
        "NT_AMD_HSA_ISA_VERSION must be the ISA version of the processor in EF_AMDGPU_MACH, with the stepping one higher for gfx900, gfx902, gfx904 and gfx906 when the e_flags xnack bit is set (LLVM 14's gfx901/903/905/907): ROCm's V2 loader takes the ISA from this note.",
        "rocm-code-object-format.rst: Instruction set architecture; llc-14 --amdhsa-code-object-version=2; ROCR-Runtime src/libamdhsacode/amd_hsa_code.cpp (GetIsa)");
    V2_ISA_NAME = (Warning, "note.v2.isa_name.mach",
        "NT_AMD_HSA_ISA_NAME should be amdgcn-amd-amdhsa-- followed by the processor of EF_AMDGPU_MACH as LLVM 14 names it in V2 (gfx901, gfx903, gfx905, gfx907 for gfx900/902/904/906 with xnack), agreeing with the ISA version note.",
        "llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp (AMDGPUTargetID::toString, code object V2); llc-14 --amdhsa-code-object-version=2");
    V2_PAL_METADATA = (Warning, "note.v2.pal_metadata",
        "NT_AMD_PAL_METADATA holds 32-bit key/value pairs, so its size is a multiple of 8.",
        "llvm/tools/llvm-readobj/ELFDumper.cpp (getAMDNote); llvm/lib/Target/AMDGPU/Utils/AMDGPUPALMetadata.cpp (setFromLegacyBlob)");
}

// The note types, declared once in the ELF layout layer.
pub use crate::elf::raw::{
    NT_AMDGPU_METADATA, NT_AMD_HSA_CODE_OBJECT_VERSION, NT_AMD_HSA_HSAIL, NT_AMD_HSA_ISA_NAME,
    NT_AMD_HSA_ISA_VERSION, NT_AMD_HSA_METADATA, NT_AMD_PAL_METADATA,
};

/// The note types of owner "AMD" (the V2 set and PAL metadata).
const AMD_NOTE_TYPES: [u32; 6] = [
    NT_AMD_HSA_CODE_OBJECT_VERSION,
    NT_AMD_HSA_HSAIL,
    NT_AMD_HSA_ISA_VERSION,
    NT_AMD_HSA_METADATA,
    NT_AMD_HSA_ISA_NAME,
    NT_AMD_PAL_METADATA,
];

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

/// `n_namesz`, `n_descsz` and `n_type` of the note header at `pos`, or
/// `None` when fewer than 12 bytes are left.
fn note_header(bytes: &[u8], pos: usize) -> Option<(u32, u32, u32)> {
    let (h, _) = from_bytes::<NoteHeader>(bytes.get(pos..)?).ok()?;
    Some((h.n_namesz.get(LE), h.n_descsz.get(LE), h.n_type.get(LE)))
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
        let Some((namesz, descsz, n_type)) = note_header(bytes, pos) else {
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
        let name_start = pos + NHDR_SIZE;
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
/// every metadata note, in file order (see [`check_merge`] for what the
/// notes of one object must agree on).
pub fn check_set<'n, 'a>(
    notes: &'n [Note<'a>],
    cov: CodeObjectVersion,
    sink: &mut Sink,
) -> Vec<&'n Note<'a>> {
    let mut metadata: Vec<&Note> = Vec::new();
    for n in notes {
        let known = match (n.name.as_str(), n.n_type) {
            ("AMDGPU", NT_AMDGPU_METADATA) => {
                metadata.push(n);
                true
            }
            ("AMD", t) => {
                // The V2 note set; in V3+ objects LLVM writes none of these,
                // but the ABI only deprecates them.
                AMD_NOTE_TYPES.contains(&t) && cov == CodeObjectVersion::V2
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
    if cov >= CodeObjectVersion::V3 && metadata.is_empty() {
        sink.report(
            &METADATA_MISSING,
            format!(
                "no NT_AMDGPU_METADATA note (owner \"AMDGPU\", type 32) in this {cov} code object"
            ),
        );
    }
    metadata
}

/// Recognises a code object V1 (the HSAIL finalizer's format): an
/// EM_AMDGPU ELF64 for the HSA OS ABI with EI_ABIVERSION 0, whose first
/// `NT_AMD_HSA_CODE_OBJECT_VERSION` note (owner "AMD") has major version
/// one. Its note sections are read with 4-byte alignment whatever
/// `sh_addralign` says, as ROCr reads them (the finalizer wrote 8 there).
/// Returns the file offset of the version note.
pub fn code_object_v1(d: &[u8]) -> Option<u64> {
    let h = elf::read_header(d)?;
    if h.class != 2
        || h.data != 1
        || h.machine != elf::EM_AMDGPU
        || h.osabi != elf::ELFOSABI_AMDGPU_HSA
        || h.abi_version != 0
    {
        return None;
    }
    for s in elf::read_sections(d, &h)
        .iter()
        .filter(|s| s.sh_type == SHT_NOTE)
    {
        let bytes = s.data(d)?;
        let mut pos = 0usize;
        while let Some((namesz, descsz, n_type)) = note_header(bytes, pos) {
            let name_end = (pos + NHDR_SIZE).checked_add(namesz as usize)?;
            let desc_start = align_up(name_end, 4)?;
            let desc_end = desc_start.checked_add(descsz as usize)?;
            let name = bytes.get(pos + NHDR_SIZE..name_end)?;
            let desc = bytes.get(desc_start..desc_end)?;
            if name == b"AMD\0" && n_type == NT_AMD_HSA_CODE_OBJECT_VERSION {
                return (CodeObjectVersionNote::parse(desc).ok()?.major == 1)
                    .then_some(s.offset + pos as u64);
            }
            pos = align_up(desc_end, 4)?;
        }
    }
    None
}

/// The root keys of one `NT_AMDGPU_METADATA` note that the notes of one
/// object must agree on (each as decoded; absent or of the wrong kind is
/// `None`, which the note's own rules report).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataRoot {
    /// `amdhsa.version`.
    pub version: Option<[u64; 2]>,
    /// `amdhsa.target`.
    pub target: Option<String>,
    /// Whether the note has the `amdhsa.target` key (of any type).
    pub target_key: bool,
    /// `amdhsa.printf`, if the note has the key.
    pub printf: Option<Vec<String>>,
}

/// The rules between the metadata notes of one object, merged the way
/// comgr merges them: the first note is the base; each later note must
/// have its version, may name the target only if it names the same one,
/// and may carry a printf list only if the base has none or the same one.
/// `notes` are (file offset of the note, its root keys), in file order.
pub fn check_merge(notes: &[(u64, MetadataRoot)], sink: &mut Sink) {
    let Some(((first_at, first), rest)) = notes.split_first() else {
        return;
    };
    let mut target: Option<(u64, &str)> = first.target.as_deref().map(|t| (*first_at, t));
    let mut printf: Option<(u64, &[String])> = first.printf.as_deref().map(|p| (*first_at, p));
    for (at, n) in rest {
        if n.version != first.version {
            let show = |v: Option<[u64; 2]>| {
                v.map_or("no version".to_owned(), |[a, b]| format!("[{a}, {b}]"))
            };
            sink.report_at(
                &METADATA_VERSION_CONFLICT,
                *at,
                format!(
                    "this note's amdhsa.version is {}, the first note's (at {first_at:#x}) is {}: comgr drops this note and its kernels",
                    show(n.version),
                    show(first.version)
                ),
            );
        }
        if let Some(t) = n.target.as_deref() {
            match target {
                Some((t_at, want)) if want != t => sink.report_at(
                    &METADATA_TARGET_CONFLICT,
                    *at,
                    format!(
                        "this note's amdhsa.target is {t:?}, the note at {t_at:#x} names {want:?}"
                    ),
                ),
                Some(_) => {}
                None => target = Some((*at, t)),
            }
        }
        if let Some(p) = n.printf.as_deref() {
            match printf {
                Some((p_at, want)) if want != p => sink.report_at(
                    &METADATA_PRINTF_CONFLICT,
                    *at,
                    format!(
                        "this note's amdhsa.printf ({} entr{}) differs from the note's at {p_at:#x} ({} entr{}): comgr drops this note, crashes or prints its formats wrong, by version",
                        p.len(),
                        if p.len() == 1 { "y" } else { "ies" },
                        want.len(),
                        if want.len() == 1 { "y" } else { "ies" },
                    ),
                ),
                Some((p_at, _)) => sink.report_at(
                    &METADATA_PRINTF_REPEATED,
                    *at,
                    format!(
                        "this note repeats the amdhsa.printf list of the note at {p_at:#x}: older comgr drops this note and its kernels"
                    ),
                ),
                None => printf = Some((*at, p)),
            }
        }
    }
}

/// `NT_AMD_HSA_CODE_OBJECT_VERSION`: the code object version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CodeObjectVersionNote {
    /// Major version (2 for code object V2).
    pub major: u32,
    /// Minor version (LLVM 14 writes 1).
    pub minor: u32,
}

impl CodeObjectVersionNote {
    /// Decodes the 8-byte description.
    pub fn parse(desc: &[u8]) -> Result<Self, String> {
        if desc.len() != 8 {
            return Err(format!(
                "NT_AMD_HSA_CODE_OBJECT_VERSION description is {} bytes, not 8",
                desc.len()
            ));
        }
        match (elf::le_u32(desc, 0), elf::le_u32(desc, 4)) {
            (Some(major), Some(minor)) => Ok(Self { major, minor }),
            _ => Err("NT_AMD_HSA_CODE_OBJECT_VERSION description is truncated".to_owned()),
        }
    }
}

/// `NT_AMD_HSA_HSAIL`: properties of HSAIL the object was finalized from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct HsailNote {
    /// HSAIL major version.
    pub hsail_major: u32,
    /// HSAIL minor version.
    pub hsail_minor: u32,
    /// `hsa_profile_t`: 0 base, 1 full.
    pub profile: u8,
    /// `hsa_machine_model_t`: 0 small, 1 large.
    pub machine_model: u8,
    /// `hsa_default_float_rounding_mode_t`: 0 default, 1 zero, 2 near.
    pub default_float_round: u8,
}

impl HsailNote {
    /// Size of the description: the C struct with its tail padding.
    pub const SIZE: usize = 12;

    /// Decodes the 12-byte description.
    pub fn parse(desc: &[u8]) -> Result<Self, String> {
        if desc.len() != Self::SIZE {
            return Err(format!(
                "NT_AMD_HSA_HSAIL description is {} bytes, not {}",
                desc.len(),
                Self::SIZE
            ));
        }
        let byte = |i: usize| desc.get(i).copied().unwrap_or(0);
        match (elf::le_u32(desc, 0), elf::le_u32(desc, 4)) {
            (Some(hsail_major), Some(hsail_minor)) => Ok(Self {
                hsail_major,
                hsail_minor,
                profile: byte(8),
                machine_model: byte(9),
                default_float_round: byte(10),
            }),
            _ => Err("NT_AMD_HSA_HSAIL description is truncated".to_owned()),
        }
    }
}

/// `NT_AMD_HSA_ISA_VERSION`: vendor, architecture and ISA version.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IsaVersionNote {
    /// `vendor_name_size`: bytes of the vendor name with its NUL.
    pub vendor_name_size: u16,
    /// `architecture_name_size`: bytes of the architecture name with its NUL.
    pub architecture_name_size: u16,
    /// Major version (GFX IP).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
    /// Stepping.
    pub stepping: u32,
    /// The vendor name bytes (`vendor_name_size` of them, normally `AMD\0`).
    pub vendor: Vec<u8>,
    /// The architecture name bytes (normally `AMDGPU\0`).
    pub architecture: Vec<u8>,
}

impl IsaVersionNote {
    /// Size of the fixed part before the names.
    pub const HEADER: usize = 16;

    /// Decodes the description: the 16-byte header, then the two names.
    /// Fails, as `llvm-readobj` does, when a name size is 0 or the names do
    /// not fit.
    pub fn parse(desc: &[u8]) -> Result<Self, String> {
        let le16 = |i: usize| {
            desc.get(i..i + 2)
                .and_then(|b| <[u8; 2]>::try_from(b).ok())
                .map(u16::from_le_bytes)
        };
        let (Some(vsize), Some(asize), Some(major), Some(minor), Some(stepping)) = (
            le16(0),
            le16(2),
            elf::le_u32(desc, 4),
            elf::le_u32(desc, 8),
            elf::le_u32(desc, 12),
        ) else {
            return Err(format!(
                "NT_AMD_HSA_ISA_VERSION description is {} bytes, less than its 16-byte header",
                desc.len()
            ));
        };
        let vend = Self::HEADER + usize::from(vsize);
        let aend = vend + usize::from(asize);
        if vsize == 0 || asize == 0 || aend > desc.len() {
            return Err(format!(
                "NT_AMD_HSA_ISA_VERSION names of {vsize} and {asize} bytes do not fit a {}-byte description after the header",
                desc.len()
            ));
        }
        Ok(Self {
            vendor_name_size: vsize,
            architecture_name_size: asize,
            major,
            minor,
            stepping,
            vendor: desc.get(Self::HEADER..vend).unwrap_or_default().to_vec(),
            architecture: desc.get(vend..aend).unwrap_or_default().to_vec(),
        })
    }

    /// `[major, minor, stepping]`.
    pub fn version(&self) -> [u32; 3] {
        [self.major, self.minor, self.stepping]
    }

    /// A name without its terminating NUL (and anything after a NUL), as
    /// text.
    fn name(bytes: &[u8]) -> String {
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        String::from_utf8_lossy(bytes.get(..end).unwrap_or_default()).into_owned()
    }

    /// The vendor name without its NUL.
    pub fn vendor_name(&self) -> String {
        Self::name(&self.vendor)
    }

    /// The architecture name without its NUL.
    pub fn architecture_name(&self) -> String {
        Self::name(&self.architecture)
    }

    /// The ISA string `Vendor:Architecture:Major:Minor:Stepping`, e.g.
    /// `AMD:AMDGPU:8:0:1` (rocm-code-object-format.rst "Instruction set
    /// architecture").
    pub fn isa_string(&self) -> String {
        format!(
            "{}:{}:{}:{}:{}",
            self.vendor_name(),
            self.architecture_name(),
            self.major,
            self.minor,
            self.stepping
        )
    }
}

/// Parses an ISA string `AMD:AMDGPU:Major:Minor:Stepping` into its
/// version; `None` for another vendor or architecture or a malformed
/// number.
pub fn parse_isa_string(s: &str) -> Option<[u32; 3]> {
    let mut parts = s.split(':');
    if parts.next()? != "AMD" || parts.next()? != "AMDGPU" {
        return None;
    }
    let mut v = [0u32; 3];
    for slot in &mut v {
        let p = parts.next()?;
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *slot = p.parse().ok()?;
    }
    parts.next().is_none().then_some(v)
}

/// The processors whose V2 ISA version LLVM 14 raises by one stepping when
/// xnack is on (naming them gfx901, gfx903, gfx905 and gfx907).
const XNACK_STEPPING: [&str; 4] = ["gfx900", "gfx902", "gfx904", "gfx906"];

/// The ISA version a V2 code object for `target` carries in
/// `NT_AMD_HSA_ISA_VERSION`: the processor's ISA version, with the
/// stepping one higher for gfx900/902/904/906 when `xnack` is on.
///
/// Checked with `llc-14 --amdhsa-code-object-version=2` for every
/// processor it accepts there: gfx600–602 (6.0.x), gfx700–705 (7.0.x),
/// gfx801 (8.0.1, xnack required), gfx802, gfx803, gfx805 (8.0.x), gfx810
/// (8.1.0, xnack required), gfx900/902/904/906 (9.0.s, 9.0.s+1 with xnack)
/// and gfx90c (9.0.12, only without xnack). It rejects gfx908, gfx909,
/// gfx90a and GFX10+ at V2.
pub fn v2_isa_version(target: &Target, xnack: bool) -> [u32; 3] {
    let [major, minor, stepping] = target.isa_version.map(u32::from);
    let bump = xnack && XNACK_STEPPING.contains(&target.name);
    [major, minor, stepping + u32::from(bump)]
}

/// The processor name LLVM 14 writes in a V2 `NT_AMD_HSA_ISA_NAME`: the
/// processor, or for gfx900/902/904/906 with xnack on the next stepping's
/// name (`gfx901`, `gfx903`, `gfx905`, `gfx907`).
pub fn v2_processor_name(target: &Target, xnack: bool) -> String {
    if xnack && XNACK_STEPPING.contains(&target.name) {
        let [major, minor, stepping] = v2_isa_version(target, true);
        format!("gfx{major}{minor}{stepping}")
    } else {
        target.name.to_owned()
    }
}

/// The processor (and whether xnack is on) a V2 ISA version names, by the
/// inverse of [`v2_isa_version`]; `None` for versions no processor has
/// (such as the legacy 8.0.0 and 8.0.4 of rocm-code-object-format.rst).
pub fn isa_version_target(v: [u32; 3]) -> Option<(&'static Target, bool)> {
    let plain = targets::hsa_targets()
        .filter(|t| !t.is_generic && t.generation >= Generation::Gfx6)
        .find(|t| t.isa_version.map(u32::from) == v);
    if let Some(t) = plain {
        return Some((t, false));
    }
    XNACK_STEPPING
        .iter()
        .filter_map(|n| targets::by_name(n))
        .find(|t| v2_isa_version(t, true) == v)
        .map(|t| (t, true))
}

/// The "AMD" notes of a code object V2, decoded (the first of each type).
#[derive(Debug, Clone, Default)]
pub struct V2Notes<'n, 'a> {
    /// `NT_AMD_HSA_CODE_OBJECT_VERSION`.
    pub code_object_version: Option<CodeObjectVersionNote>,
    /// `NT_AMD_HSA_HSAIL`.
    pub hsail: Option<HsailNote>,
    /// `NT_AMD_HSA_ISA_VERSION`.
    pub isa_version: Option<IsaVersionNote>,
    /// `NT_AMD_HSA_ISA_NAME`, e.g. `amdgcn-amd-amdhsa--gfx803` (lossy if
    /// not UTF-8).
    pub isa_name: Option<String>,
    /// The `NT_AMD_HSA_METADATA` note (YAML text, see
    /// [`crate::metadata_v2::check`]).
    pub metadata: Option<&'n Note<'a>>,
    /// `NT_AMD_PAL_METADATA` as key/value pairs (whole pairs only).
    pub pal_metadata: Option<Vec<(u32, u32)>>,
}

/// Decodes and checks the "AMD" notes of a code object V2 whose header has
/// `e_flags`: which notes are present, their sizes and contents, and the
/// ISA version and name against the processor of `e_flags`. Call it after
/// [`check_set`] (which reports notes of unknown owner or type).
pub fn check_v2<'n, 'a>(notes: &'n [Note<'a>], e_flags: u32, sink: &mut Sink) -> V2Notes<'n, 'a> {
    let mut out = V2Notes::default();
    let mut seen: Vec<u32> = Vec::new();
    for n in notes.iter().filter(|n| n.name == "AMD") {
        let known = AMD_NOTE_TYPES.contains(&n.n_type);
        if !known {
            continue;
        }
        if seen.contains(&n.n_type) {
            sink.report_at(
                &V2_DUPLICATE,
                n.offset,
                format!(
                    "a second \"AMD\" note of type {} (the first counts)",
                    n.n_type
                ),
            );
            continue;
        }
        seen.push(n.n_type);
        match n.n_type {
            NT_AMD_HSA_CODE_OBJECT_VERSION => match CodeObjectVersionNote::parse(n.desc) {
                Ok(v) => {
                    if v.major != 2 {
                        sink.report_at(
                            &V2_CODE_OBJECT_VERSION,
                            n.desc_offset,
                            format!(
                                "NT_AMD_HSA_CODE_OBJECT_VERSION is {}.{}, but EI_ABIVERSION 0 means code object 2",
                                v.major, v.minor
                            ),
                        );
                    }
                    out.code_object_version = Some(v);
                }
                Err(e) => sink.report_at(&V2_DESC_SIZE, n.offset, e),
            },
            NT_AMD_HSA_HSAIL => match HsailNote::parse(n.desc) {
                Ok(h) => {
                    let mut bad = Vec::new();
                    if h.profile > 1 {
                        bad.push(format!("profile {}", h.profile));
                    }
                    if h.machine_model > 1 {
                        bad.push(format!("machine model {}", h.machine_model));
                    }
                    if h.default_float_round > 2 {
                        bad.push(format!("default float rounding {}", h.default_float_round));
                    }
                    let msg = if bad.is_empty() {
                        "NT_AMD_HSA_HSAIL note: an HSAIL finalizer object, not one LLVM writes"
                            .to_owned()
                    } else {
                        format!("NT_AMD_HSA_HSAIL has {}", bad.join(", "))
                    };
                    sink.report_at(&V2_HSAIL, n.desc_offset, msg);
                    out.hsail = Some(h);
                }
                Err(e) => sink.report_at(&V2_DESC_SIZE, n.offset, e),
            },
            NT_AMD_HSA_ISA_VERSION => match IsaVersionNote::parse(n.desc) {
                Ok(isa) => {
                    let vendor_ok = isa.vendor == b"AMD\0";
                    let arch_ok = isa.architecture == b"AMDGPU\0";
                    if !vendor_ok || !arch_ok {
                        sink.report_at(
                            &V2_ISA_NAMES,
                            n.desc_offset,
                            format!(
                                "NT_AMD_HSA_ISA_VERSION names vendor {:?} ({} bytes) and architecture {:?} ({} bytes), expected \"AMD\\0\" (4) and \"AMDGPU\\0\" (7)",
                                String::from_utf8_lossy(&isa.vendor),
                                isa.vendor_name_size,
                                String::from_utf8_lossy(&isa.architecture),
                                isa.architecture_name_size
                            ),
                        );
                    }
                    out.isa_version = Some(isa);
                }
                Err(e) => sink.report_at(&V2_DESC_SIZE, n.offset, e),
            },
            NT_AMD_HSA_ISA_NAME => {
                out.isa_name = Some(String::from_utf8_lossy(n.desc).into_owned());
            }
            NT_AMD_HSA_METADATA => out.metadata = Some(n),
            _ => {
                if n.desc.len() % 8 != 0 {
                    sink.report_at(
                        &V2_PAL_METADATA,
                        n.offset,
                        format!(
                            "NT_AMD_PAL_METADATA description is {} bytes, not a whole number of 8-byte pairs",
                            n.desc.len()
                        ),
                    );
                }
                let pairs = n
                    .desc
                    .chunks_exact(8)
                    .filter_map(|c| Some((elf::le_u32(c, 0)?, elf::le_u32(c, 4)?)))
                    .collect();
                out.pal_metadata = Some(pairs);
            }
        }
    }
    let missing: Vec<&str> = [
        (
            NT_AMD_HSA_CODE_OBJECT_VERSION,
            "NT_AMD_HSA_CODE_OBJECT_VERSION",
        ),
        (NT_AMD_HSA_ISA_VERSION, "NT_AMD_HSA_ISA_VERSION"),
        (NT_AMD_HSA_METADATA, "NT_AMD_HSA_METADATA"),
    ]
    .iter()
    .filter(|(t, _)| !seen.contains(t))
    .map(|(_, name)| *name)
    .collect();
    if !missing.is_empty() {
        sink.report(
            &V2_MISSING,
            format!(
                "code object V2 without the {} note(s) (owner \"AMD\")",
                missing.join(", ")
            ),
        );
    }
    if !seen.contains(&NT_AMD_HSA_ISA_NAME) {
        sink.report(
            &V2_ISA_NAME_MISSING,
            "code object V2 without an NT_AMD_HSA_ISA_NAME note (owner \"AMD\")",
        );
    }
    check_v2_isa(notes, &out, e_flags, sink);
    out
}

/// The ISA version and ISA name notes against `e_flags` and each other.
fn check_v2_isa(notes: &[Note<'_>], out: &V2Notes<'_, '_>, e_flags: u32, sink: &mut Sink) {
    let first = |t: u32| notes.iter().find(|n| n.name == "AMD" && n.n_type == t);
    let id: Option<TargetId> = TargetId::from_e_flags(e_flags, CodeObjectVersion::V2).ok();
    let from_flags = id.map(|id| (id.target, id.xnack == FeatureSetting::On));
    if let (Some(isa), Some((t, xnack)), Some(n)) =
        (&out.isa_version, from_flags, first(NT_AMD_HSA_ISA_VERSION))
    {
        let want = v2_isa_version(t, xnack);
        if isa.version() != want {
            sink.report_at(
                &V2_ISA_MACH,
                n.desc_offset,
                format!(
                    "NT_AMD_HSA_ISA_VERSION is {}.{}.{}, but e_flags name {}{} (ISA version {}.{}.{})",
                    isa.major,
                    isa.minor,
                    isa.stepping,
                    t.name,
                    if xnack { " with xnack" } else { "" },
                    want[0],
                    want[1],
                    want[2]
                ),
            );
        }
    }
    // The processor the ISA name should name: from e_flags, else from the
    // ISA version note.
    let expected = from_flags.or_else(|| isa_version_target(out.isa_version.as_ref()?.version()));
    if let (Some(name), Some((t, xnack)), Some(n)) =
        (&out.isa_name, expected, first(NT_AMD_HSA_ISA_NAME))
    {
        let want = format!("{}{}", targets::TRIPLE_PREFIX, v2_processor_name(t, xnack));
        if *name != want {
            sink.report_at(
                &V2_ISA_NAME,
                n.desc_offset,
                format!("NT_AMD_HSA_ISA_NAME is {name:?}, expected {want:?}"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn root(
        version: Option<[u64; 2]>,
        target: Option<&str>,
        printf: Option<&[&str]>,
    ) -> MetadataRoot {
        MetadataRoot {
            version,
            target: target.map(str::to_owned),
            target_key: target.is_some(),
            printf: printf.map(|p| p.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    fn merged(notes: &[MetadataRoot]) -> Vec<(&'static str, Option<u64>)> {
        let with_offsets: Vec<(u64, MetadataRoot)> = notes
            .iter()
            .enumerate()
            .map(|(i, r)| (0x100 * (i as u64 + 1), r.clone()))
            .collect();
        let mut sink = Sink::new();
        check_merge(&with_offsets, &mut sink);
        sink.violations
            .iter()
            .map(|v| (v.rule.id, v.offset))
            .collect()
    }

    #[test]
    fn notes_merge_as_comgr_merges_them() {
        let v5 = Some([1, 2]);
        let t = Some("amdgcn-amd-amdhsa--gfx90a");
        let plain = root(v5, t, None);
        // One note, or several that agree (a target named once is enough).
        assert_eq!(merged(&[]), vec![]);
        assert_eq!(merged(std::slice::from_ref(&plain)), vec![]);
        assert_eq!(
            merged(&[plain.clone(), plain.clone(), root(v5, None, None)]),
            vec![]
        );
        // One printf list, in any note.
        let p1: &[&str] = &["1:1:4:%d"];
        assert_eq!(merged(&[plain.clone(), root(v5, t, Some(p1))]), vec![]);
        // Each conflict is reported at the later note.
        assert_eq!(
            merged(&[plain.clone(), root(Some([1, 1]), t, None)]),
            vec![(METADATA_VERSION_CONFLICT.id, Some(0x200))]
        );
        assert_eq!(
            merged(&[plain.clone(), root(None, t, None)]),
            vec![(METADATA_VERSION_CONFLICT.id, Some(0x200))]
        );
        assert_eq!(
            merged(&[
                root(v5, None, None),
                plain.clone(),
                root(v5, Some("amdgcn-amd-amdhsa--gfx90a:xnack-"), None)
            ]),
            vec![(METADATA_TARGET_CONFLICT.id, Some(0x300))]
        );
        assert_eq!(
            merged(&[
                root(v5, t, Some(p1)),
                plain.clone(),
                root(v5, t, Some(&["1:1:4:%u"]))
            ]),
            vec![(METADATA_PRINTF_CONFLICT.id, Some(0x300))]
        );
        assert_eq!(
            merged(&[root(v5, t, Some(p1)), root(v5, t, Some(p1))]),
            vec![(METADATA_PRINTF_REPEATED.id, Some(0x200))]
        );
    }

    /// A minimal code object V1 header with one note section holding
    /// `notes`, aligned to 8 as the HSAIL finalizer declared it.
    fn v1_object(notes: &[u8], abi_version: u8) -> Vec<u8> {
        let mut d = vec![0u8; 64];
        d[..4].copy_from_slice(b"\x7fELF");
        d[4] = 2;
        d[5] = 1;
        d[6] = 1;
        d[7] = elf::ELFOSABI_AMDGPU_HSA;
        d[8] = abi_version;
        d[16..18].copy_from_slice(&3u16.to_le_bytes());
        d[18..20].copy_from_slice(&elf::EM_AMDGPU.to_le_bytes());
        d[20..24].copy_from_slice(&1u32.to_le_bytes());
        d[52..54].copy_from_slice(&64u16.to_le_bytes());
        let note_off = d.len() as u64;
        d.extend_from_slice(notes);
        let shoff = d.len() as u64;
        d[40..48].copy_from_slice(&shoff.to_le_bytes());
        d[58..60].copy_from_slice(&64u16.to_le_bytes());
        d[60..62].copy_from_slice(&2u16.to_le_bytes());
        d.extend_from_slice(&[0u8; 64]);
        let mut sh = [0u8; 64];
        sh[4..8].copy_from_slice(&SHT_NOTE.to_le_bytes());
        sh[24..32].copy_from_slice(&note_off.to_le_bytes());
        sh[32..40].copy_from_slice(&(notes.len() as u64).to_le_bytes());
        sh[48..56].copy_from_slice(&8u64.to_le_bytes());
        d.extend_from_slice(&sh);
        d
    }

    fn amd_note(n_type: u32, desc: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend(4u32.to_le_bytes());
        v.extend((desc.len() as u32).to_le_bytes());
        v.extend(n_type.to_le_bytes());
        v.extend(b"AMD\0");
        v.extend(desc);
        while v.len() % 4 != 0 {
            v.push(0);
        }
        v
    }

    #[test]
    fn code_object_v1_is_recognised_with_four_byte_notes() {
        // The finalizer's layout: a 12-byte HSAIL note first, so the
        // version note sits at a 4-byte (not 8-byte) boundary after it.
        let hsail = amd_note(NT_AMD_HSA_HSAIL, &[1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 0]);
        let v1 = amd_note(NT_AMD_HSA_CODE_OBJECT_VERSION, &pair(1, 0));
        let notes = [hsail.clone(), v1].concat();
        let d = v1_object(&notes, 0);
        assert_eq!(code_object_v1(&d), Some(64 + hsail.len() as u64));
        // Version 2.x, another ABI version, or no version note: not V1.
        let v2 = [
            hsail.clone(),
            amd_note(NT_AMD_HSA_CODE_OBJECT_VERSION, &pair(2, 1)),
        ]
        .concat();
        assert_eq!(code_object_v1(&v1_object(&v2, 0)), None);
        assert_eq!(code_object_v1(&v1_object(&notes, 1)), None);
        assert_eq!(code_object_v1(&v1_object(&hsail, 0)), None);
        // Every truncation is simply not V1 (and never a panic).
        for cut in 0..d.len() {
            let _ = code_object_v1(&d[..cut]);
        }
    }

    const DESC_OFFSET: u64 = 0x200;
    /// gfx900 with the xnack bit, llc-14's default at V2.
    const E_FLAGS: u32 = 0x12c;

    fn isa_desc(vendor: &[u8], arch: &[u8], v: [u32; 3]) -> Vec<u8> {
        let mut d = Vec::new();
        d.extend_from_slice(&(vendor.len() as u16).to_le_bytes());
        d.extend_from_slice(&(arch.len() as u16).to_le_bytes());
        for x in v {
            d.extend_from_slice(&x.to_le_bytes());
        }
        d.extend_from_slice(vendor);
        d.extend_from_slice(arch);
        d
    }

    fn pair(a: u32, b: u32) -> Vec<u8> {
        [a.to_le_bytes(), b.to_le_bytes()].concat()
    }

    /// The notes llc-14 writes for gfx900 with xnack, in its order.
    fn base() -> Vec<(String, u32, Vec<u8>)> {
        vec![
            ("AMD".into(), NT_AMD_HSA_CODE_OBJECT_VERSION, pair(2, 1)),
            (
                "AMD".into(),
                NT_AMD_HSA_ISA_VERSION,
                isa_desc(b"AMD\0", b"AMDGPU\0", [9, 0, 1]),
            ),
            (
                "AMD".into(),
                NT_AMD_HSA_ISA_NAME,
                b"amdgcn-amd-amdhsa--gfx901".to_vec(),
            ),
            ("AMD".into(), NT_AMD_HSA_METADATA, b"---\n...\n".to_vec()),
        ]
    }

    fn run(raw: &[(String, u32, Vec<u8>)], e_flags: u32) -> Sink {
        let notes: Vec<Note> = raw
            .iter()
            .enumerate()
            .map(|(i, (name, t, desc))| Note {
                name: name.clone(),
                n_type: *t,
                desc,
                offset: DESC_OFFSET + 64 * i as u64,
                desc_offset: DESC_OFFSET + 64 * i as u64 + 16,
            })
            .collect();
        let mut sink = Sink::new();
        let _ = check_set(&notes, CodeObjectVersion::V2, &mut sink);
        let _ = check_v2(&notes, e_flags, &mut sink);
        sink
    }

    type Mutation = (&'static str, fn(&mut Vec<(String, u32, Vec<u8>)>));

    fn mutations() -> Vec<Mutation> {
        vec![
            ("note.v2.missing", |n| {
                n.remove(0);
            }),
            ("note.v2.missing", |n| {
                n.remove(1);
            }),
            ("note.v2.missing", |n| {
                n.remove(3);
            }),
            ("note.v2.isa_name.missing", |n| {
                n.remove(2);
            }),
            ("note.v2.duplicate", |n| {
                let first = n[0].clone();
                n.push(first);
            }),
            ("note.v2.desc_size", |n| n[0].2.extend_from_slice(&[0; 4])),
            ("note.v2.desc_size", |n| n[1].2.truncate(20)),
            ("note.v2.desc_size", |n| n[1].2.truncate(10)),
            ("note.v2.desc_size", |n| {
                n.push(("AMD".into(), NT_AMD_HSA_HSAIL, vec![0; 11]));
            }),
            ("note.v2.code_object_version", |n| n[0].2 = pair(3, 0)),
            ("note.v2.hsail", |n| {
                n.push((
                    "AMD".into(),
                    NT_AMD_HSA_HSAIL,
                    vec![1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 0],
                ));
            }),
            ("note.v2.hsail", |n| {
                n.push((
                    "AMD".into(),
                    NT_AMD_HSA_HSAIL,
                    vec![1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 3, 0],
                ));
            }),
            ("note.v2.isa_version.names", |n| {
                n[1].2 = isa_desc(b"AMX\0", b"AMDGPU\0", [9, 0, 1]);
            }),
            ("note.v2.isa_version.names", |n| {
                n[1].2 = isa_desc(b"AMD", b"AMDGPU\0", [9, 0, 1]);
            }),
            ("note.v2.isa_version.mach", |n| {
                n[1].2 = isa_desc(b"AMD\0", b"AMDGPU\0", [9, 0, 0]);
            }),
            ("note.v2.isa_name.mach", |n| {
                n[2].2 = b"amdgcn-amd-amdhsa--gfx900".to_vec();
            }),
            ("note.v2.pal_metadata", |n| {
                n.push(("AMD".into(), NT_AMD_PAL_METADATA, vec![0; 12]));
            }),
        ]
    }

    /// The notes of `raw` (name, type, description), at offset 0.
    fn notes_of(raw: &[(String, u32, Vec<u8>)]) -> Vec<Note<'_>> {
        raw.iter()
            .map(|(name, t, desc)| Note {
                name: name.clone(),
                n_type: *t,
                desc,
                offset: 0,
                desc_offset: 0,
            })
            .collect()
    }

    #[test]
    fn v2_base_is_clean_and_decoded() {
        let raw = base();
        let sink = run(&raw, E_FLAGS);
        assert!(sink.violations.is_empty(), "{:#?}", sink.violations);
        let notes = notes_of(&raw);
        let mut sink = Sink::new();
        let v2 = check_v2(&notes, E_FLAGS, &mut sink);
        assert_eq!(
            v2.code_object_version,
            Some(CodeObjectVersionNote { major: 2, minor: 1 })
        );
        let isa = v2.isa_version.unwrap();
        assert_eq!(
            (
                isa.vendor_name_size,
                isa.architecture_name_size,
                isa.version()
            ),
            (4, 7, [9, 0, 1])
        );
        assert_eq!(isa.isa_string(), "AMD:AMDGPU:9:0:1");
        assert_eq!(v2.isa_name.as_deref(), Some("amdgcn-amd-amdhsa--gfx901"));
        assert_eq!(v2.metadata.map(|n| n.desc), Some(&b"---\n...\n"[..]));
        // PAL metadata pairs are decoded; a PAL note is no violation.
        let mut raw = base();
        let mut pal = pair(0x2c01, 5);
        pal.extend(pair(0x2c02, 7));
        raw.push(("AMD".into(), NT_AMD_PAL_METADATA, pal));
        let notes = notes_of(&raw);
        let mut sink = Sink::new();
        let v2 = check_v2(&notes, E_FLAGS, &mut sink);
        assert!(sink.violations.is_empty(), "{:#?}", sink.violations);
        assert_eq!(v2.pal_metadata, Some(vec![(0x2c01, 5), (0x2c02, 7)]));
    }

    #[test]
    fn each_v2_mutation_breaks_its_rule() {
        for (i, (id, f)) in mutations().into_iter().enumerate() {
            let mut raw = base();
            f(&mut raw);
            let sink = run(&raw, E_FLAGS);
            let got: BTreeSet<&str> = sink.violations.iter().map(|v| v.rule.id).collect();
            assert_eq!(
                got,
                BTreeSet::from([id]),
                "mutation {i} ({id}): {:#?}",
                sink.violations
            );
        }
    }

    #[test]
    fn every_v2_rule_has_a_mutation() {
        let covered: BTreeSet<&str> = mutations().iter().map(|(id, _)| *id).collect();
        for r in RULES.iter().filter(|r| r.id.starts_with("note.v2.")) {
            assert!(covered.contains(r.id), "rule {} has no mutation test", r.id);
        }
    }

    #[test]
    fn isa_version_table_matches_llc_14() {
        // (processor, xnack, ISA version, ISA name) as llc-14
        // --amdhsa-code-object-version=2 writes them.
        let rows: &[(&str, bool, [u32; 3], &str)] = &[
            ("gfx600", false, [6, 0, 0], "gfx600"),
            ("gfx601", false, [6, 0, 1], "gfx601"),
            ("gfx602", false, [6, 0, 2], "gfx602"),
            ("gfx700", false, [7, 0, 0], "gfx700"),
            ("gfx701", false, [7, 0, 1], "gfx701"),
            ("gfx702", false, [7, 0, 2], "gfx702"),
            ("gfx703", false, [7, 0, 3], "gfx703"),
            ("gfx704", false, [7, 0, 4], "gfx704"),
            ("gfx705", false, [7, 0, 5], "gfx705"),
            ("gfx801", true, [8, 0, 1], "gfx801"),
            ("gfx802", false, [8, 0, 2], "gfx802"),
            ("gfx803", false, [8, 0, 3], "gfx803"),
            ("gfx805", false, [8, 0, 5], "gfx805"),
            ("gfx810", true, [8, 1, 0], "gfx810"),
            ("gfx900", false, [9, 0, 0], "gfx900"),
            ("gfx900", true, [9, 0, 1], "gfx901"),
            ("gfx902", false, [9, 0, 2], "gfx902"),
            ("gfx902", true, [9, 0, 3], "gfx903"),
            ("gfx904", false, [9, 0, 4], "gfx904"),
            ("gfx904", true, [9, 0, 5], "gfx905"),
            ("gfx906", false, [9, 0, 6], "gfx906"),
            ("gfx906", true, [9, 0, 7], "gfx907"),
            ("gfx90c", false, [9, 0, 12], "gfx90c"),
        ];
        for &(cpu, xnack, v, name) in rows {
            let t = targets::by_name(cpu).unwrap();
            assert_eq!(v2_isa_version(t, xnack), v, "{cpu} {xnack}");
            assert_eq!(v2_processor_name(t, xnack), name, "{cpu} {xnack}");
            let (back, bx) = isa_version_target(v).unwrap();
            // gfx801 and gfx810 always have xnack at V2; their version does
            // not say so.
            assert_eq!(
                (back.name, bx),
                (cpu, xnack && cpu.starts_with("gfx90")),
                "{v:?}"
            );
        }
        // The document's legacy 8.0.0 and 8.0.4 name no processor.
        assert!(isa_version_target([8, 0, 0]).is_none());
        assert!(isa_version_target([8, 0, 4]).is_none());
        assert_eq!(parse_isa_string("AMD:AMDGPU:8:0:1"), Some([8, 0, 1]));
        assert_eq!(parse_isa_string("AMD:AMDGPU:9:0:12"), Some([9, 0, 12]));
        for bad in [
            "AMD:AMDGPU:8:0",
            "AMD:AMDGPU:8:0:1:2",
            "AMD:R600:8:0:1",
            "AMD:AMDGPU:8:+0:1",
            "AMD:AMDGPU:8::1",
        ] {
            assert_eq!(parse_isa_string(bad), None, "{bad}");
        }
    }

    #[test]
    fn v2_note_parsers_bound_by_input() {
        assert!(CodeObjectVersionNote::parse(&[0; 7]).is_err());
        assert!(HsailNote::parse(&[0; 13]).is_err());
        // Name sizes larger than the description.
        let mut d = isa_desc(b"AMD\0", b"AMDGPU\0", [8, 0, 3]);
        d[0] = 0xff;
        d[1] = 0xff;
        assert!(IsaVersionNote::parse(&d).is_err());
        assert!(IsaVersionNote::parse(&d[..15]).is_err());
        let mut zero = isa_desc(b"", b"AMDGPU\0", [8, 0, 3]);
        assert!(IsaVersionNote::parse(&zero).is_err());
        zero.clear();
        assert!(IsaVersionNote::parse(&zero).is_err());
    }

    proptest::proptest! {
        #[test]
        fn v2_checks_never_panic(
            notes in proptest::collection::vec((0u32..14, proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40)), 0..8),
            e_flags in proptest::prelude::any::<u32>(),
        ) {
            let raw: Vec<(String, u32, Vec<u8>)> = notes.into_iter().map(|(t, d)| ("AMD".to_owned(), t, d)).collect();
            let _ = run(&raw, e_flags);
        }
    }
}
