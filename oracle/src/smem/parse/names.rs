//! Register names (regular, `ttmp` and special) and the binary operators'
//! precedence, as LLVM's parser knows them.

use super::*;

/// Binary operator precedence of LLVM's GNU-style expression parser.
pub(super) fn precedence(p: Punct) -> Option<u8> {
    Some(match p {
        Punct::PipePipe => 1,
        Punct::AmpAmp => 2,
        Punct::EqEq
        | Punct::Ne
        | Punct::LessGreater
        | Punct::Lt
        | Punct::Le
        | Punct::Gt
        | Punct::Ge => 3,
        Punct::Plus | Punct::Minus => 4,
        Punct::Pipe | Punct::Caret | Punct::Amp | Punct::Excl => 5,
        Punct::Star | Punct::Slash | Punct::Percent | Punct::Shl | Punct::Shr => 6,
        _ => return None,
    })
}

/// LLVM's regular register prefixes, tried in its order. `None` kind
/// marks vector registers (never SMEM operands).
pub(super) fn regular_prefix(w: &str) -> Option<(Option<RegKind>, &str)> {
    for (p, k) in [
        ("v", None),
        ("s", Some(RegKind::Sgpr)),
        ("ttmp", Some(RegKind::Ttmp)),
        ("acc", None),
        ("a", None),
    ] {
        if let Some(rest) = w.strip_prefix(p) {
            return Some((k, rest));
        }
    }
    None
}

/// A decimal register index as LLVM reads it (`s007` is `s7`).
pub(super) fn index_of(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[derive(Clone, Copy)]
pub(super) enum SpecialHw {
    Fixed(u8),
    M0,
    Null,
}

/// Special register names usable in SMEM operands: hardware number of the
/// first register and width.
pub(super) fn special_name(w: &str) -> Option<(SpecialHw, u32)> {
    use SpecialHw::Fixed;
    Some(match w {
        "flat_scratch" => (Fixed(102), 2),
        "flat_scratch_lo" => (Fixed(102), 1),
        "flat_scratch_hi" => (Fixed(103), 1),
        "xnack_mask" => (Fixed(104), 2),
        "xnack_mask_lo" => (Fixed(104), 1),
        "xnack_mask_hi" => (Fixed(105), 1),
        "vcc" => (Fixed(106), 2),
        "vcc_lo" => (Fixed(106), 1),
        "vcc_hi" => (Fixed(107), 1),
        "tba" => (Fixed(108), 2),
        "tba_lo" => (Fixed(108), 1),
        "tba_hi" => (Fixed(109), 1),
        "tma" => (Fixed(110), 2),
        "tma_lo" => (Fixed(110), 1),
        "tma_hi" => (Fixed(111), 1),
        "exec" => (Fixed(126), 2),
        "exec_lo" => (Fixed(126), 1),
        "exec_hi" => (Fixed(127), 1),
        "m0" => (SpecialHw::M0, 1),
        "null" => (SpecialHw::Null, 1),
        _ => return None,
    })
}

/// The lo halves that pair with the next register in a list
/// (`[vcc_lo, vcc_hi]`).
pub(super) fn special_pair(lo: u32) -> Option<()> {
    matches!(lo, 102 | 104 | 106 | 108 | 110 | 126).then_some(())
}
