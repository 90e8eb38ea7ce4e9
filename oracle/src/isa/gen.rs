//! Encoding generations: which instruction encodings a processor uses.
//!
//! The machine code of GFX8 to GFX12 comes in five encoding generations,
//! each with its own encoding identifiers, field positions and opcode
//! numbers; processors within a generation add or drop instructions (dot
//! products, MFMA, ...), which the opcode rows record per processor.
//! LLVM's disassembler starts at GFX8 (it aborts on GFX6/GFX7), so the
//! layer does too.

use crate::targets::{Generation, Target};

/// An encoding generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IsaGen {
    /// GFX8 (Volcanic Islands): gfx801-gfx810.
    Gfx8,
    /// GFX9 (Vega, CDNA): gfx900-gfx950 and the GFX9 generics.
    Gfx9,
    /// GFX10 (RDNA 1, 2).
    Gfx10,
    /// GFX11 (RDNA 3, 3.5).
    Gfx11,
    /// GFX12 (RDNA 4) and GFX12.5.
    Gfx12,
}

impl IsaGen {
    /// Every generation, oldest first.
    pub const ALL: [IsaGen; 5] = [
        Self::Gfx8,
        Self::Gfx9,
        Self::Gfx10,
        Self::Gfx11,
        Self::Gfx12,
    ];

    /// The generation of `t`, or `None` for processors the layer does not
    /// decode (r600, GFX6, GFX7).
    pub fn of(t: &Target) -> Option<Self> {
        Some(match t.generation {
            Generation::Gfx8 => Self::Gfx8,
            Generation::Gfx9 => Self::Gfx9,
            Generation::Gfx10 => Self::Gfx10,
            Generation::Gfx11 => Self::Gfx11,
            Generation::Gfx12 => Self::Gfx12,
            Generation::R600 | Generation::Gfx6 | Generation::Gfx7 => return None,
        })
    }

    /// True from GFX10 (RDNA): `null` and `m0` move, SGPRs s102-s105 exist.
    pub fn is_rdna(self) -> bool {
        self >= Self::Gfx10
    }

    /// The scalar operand code of `m0`: 124 before GFX11, 125 from GFX11.
    pub fn m0(self) -> u16 {
        if self >= Self::Gfx11 {
            125
        } else {
            124
        }
    }

    /// The scalar operand code of `null`: 125 before GFX11 (GFX8/GFX9 have
    /// no null register, but LLVM prints the code so), 124 from GFX11.
    pub fn null(self) -> u16 {
        if self >= Self::Gfx11 {
            124
        } else {
            125
        }
    }

    /// The scalar operand code of `ttmp0`: 112 on GFX8 (108-111 are
    /// `tba`/`tma`), 108 from GFX9.
    pub fn ttmp_base(self) -> u16 {
        if self == Self::Gfx8 {
            112
        } else {
            108
        }
    }

    /// Number of trap temporaries: 12 on GFX8, 16 from GFX9.
    pub fn ttmp_count(self) -> u16 {
        if self == Self::Gfx8 {
            12
        } else {
            16
        }
    }

    /// Lower-case name (`gfx9`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Gfx8 => "gfx8",
            Self::Gfx9 => "gfx9",
            Self::Gfx10 => "gfx10",
            Self::Gfx11 => "gfx11",
            Self::Gfx12 => "gfx12",
        }
    }
}
