//! Symbols: comgr's list against the symbol table.

use hsaco_oracle::elf::{self, Elf, SHT_DYNSYM, SHT_STRTAB, SHT_SYMTAB};
use hsaco_oracle::symbols::STT_SECTION;

use super::metadata::MAX_DIFFS;
use super::{err_text, verdict, Aspect, Difference, Outcome};
use crate::peers::comgr::{ComgrView, DataKind, SymbolInfo};

/// comgr's symbol type for an ELF `st_type` (`amd_comgr_symbol_type_t`).
pub fn comgr_symbol_type(st_type: u8) -> i32 {
    match st_type {
        0..=5 => i32::from(st_type),
        10 => 10,
        _ => -1,
    }
}

/// The symbols comgr should list: those of `.symtab` for a relocatable
/// object, of `.dynsym` otherwise, without the null symbol; a section
/// symbol without a name is named after its section, as LLVM does. `None` when
/// the object has no such table (or it cannot be read).
pub fn expected_symbols(elf: &Elf<'_>, kind: DataKind) -> Option<Vec<SymbolInfo>> {
    let want = match kind {
        DataKind::Relocatable => SHT_SYMTAB,
        DataKind::Executable => SHT_DYNSYM,
    };
    let table = elf.sections.iter().find(|s| s.sh_type == want)?;
    let data = table.data(elf.data)?;
    let strtab = elf
        .sections
        .get(table.link as usize)
        .filter(|s| s.sh_type == SHT_STRTAB)
        .and_then(|s| s.data(elf.data))?;
    let mut out = Vec::with_capacity(data.len() / 24);
    for e in data.chunks_exact(24).skip(1) {
        let name_off = elf::le_u32(e, 0)? as usize;
        let rest = strtab.get(name_off..)?;
        let mut name = rest.split(|&b| b == 0).next().unwrap_or_default().to_vec();
        let info = *e.get(4)?;
        let shndx = elf::le_u16(e, 6)?;
        // LLVM names a section symbol without a name after its section.
        if info & 0xf == STT_SECTION && name.is_empty() {
            if let Some(sec) = elf.sections.get(usize::from(shndx)) {
                name = sec.name.as_bytes().to_vec();
            }
        }
        out.push(SymbolInfo {
            name,
            sym_type: comgr_symbol_type(info & 0xf),
            size: elf::le_u64(e, 16)?,
            is_undefined: shndx == 0,
            value: elf::le_u64(e, 8)?,
        });
    }
    Some(out)
}

fn show_symbol(s: &SymbolInfo) -> String {
    format!(
        "{} type {} size {} value {:#x}{}",
        s.name_lossy(),
        s.sym_type,
        s.size,
        s.value,
        if s.is_undefined { " undefined" } else { "" }
    )
}

pub(super) fn compare_symbols(
    view: &ComgrView,
    elf: Option<&Elf<'_>>,
    kind: DataKind,
    diffs: &mut Vec<Difference>,
) -> Outcome {
    let from = diffs.len();
    let Some(elf) = elf else {
        return Outcome::NotComparable("not an ELF file the oracle reads".into());
    };
    let expected = expected_symbols(elf, kind);
    let push = |diffs: &mut Vec<Difference>, path: String, comgr: String, oracle: String| {
        diffs.push(Difference {
            aspect: Aspect::Symbols,
            path,
            comgr,
            oracle,
            known: None,
        })
    };
    match (&view.symbols, &expected) {
        (Ok(got), Some(want)) => {
            if got.len() != want.len() {
                push(
                    diffs,
                    "/".into(),
                    format!("{} symbols", got.len()),
                    format!("{} symbols", want.len()),
                );
            }
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                if g != w && diffs.len() - from < MAX_DIFFS {
                    push(diffs, format!("[{i}]"), show_symbol(g), show_symbol(w));
                }
            }
            for (g, found) in got.iter().zip(&view.lookups) {
                let first = want.iter().find(|w| w.name == g.name);
                let ok = matches!(found, Ok(Some(f)) if Some(f) == first);
                // Names that are not UTF-8 are not looked up.
                if !ok && std::str::from_utf8(&g.name).is_ok() {
                    push(
                        diffs,
                        format!("lookup({})", g.name_lossy()),
                        match found {
                            Ok(Some(f)) => show_symbol(f),
                            Ok(None) => "(not found)".into(),
                            Err(e) => err_text(e),
                        },
                        first.map_or_else(|| "(no such symbol)".into(), show_symbol),
                    );
                }
            }
        }
        (Ok(got), None) => push(
            diffs,
            "/".into(),
            format!("{} symbols", got.len()),
            "no symbol table".into(),
        ),
        (Err(_), None) => {}
        (Err(e), Some(want)) => push(
            diffs,
            "/".into(),
            err_text(e),
            format!("{} symbols", want.len()),
        ),
    }
    verdict(diffs, from)
}
