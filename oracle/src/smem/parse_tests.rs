use super::*;
use proptest::prelude::*;

/// Texts and the words `llvm-mc-19 -show-encoding` gives them (one
/// process per generation, see tests/smem_parse_llvm.rs), with the text
/// `Display` then prints.
#[test]
fn known_words() {
    use SmemGen::*;
    let cases: &[(SmemGen, &str, u64, &str)] = &[
        (
            Gfx8,
            "s_load_dword s5, s[2:3], 0x10",
            0x0000_0010_c002_0141,
            "s_load_dword s5, s[2:3], 0x10",
        ),
        (
            Gfx8,
            "S_Load_Dword s5,[s2,s3],16 glc",
            0x0000_0010_c003_0141,
            "s_load_dword s5, s[2:3], 0x10 glc",
        ),
        (
            Gfx8,
            "s_load_dword s5 s[2:3] (8 + 8), glc",
            0x0000_0010_c003_0141,
            "s_load_dword s5, s[2:3], 0x10 glc",
        ),
        (
            Gfx8,
            "s_load_dword s5, tba, 0x10",
            0x0000_0010_c002_0176,
            "s_load_dword s5, tba, 0x10",
        ),
        (
            Gfx8,
            "s_load_dword ttmp5, [ttmp2, ttmp3], 0x10",
            0x0000_0010_c002_1d79,
            "s_load_dword ttmp5, ttmp[2:3], 0x10",
        ),
        (
            Gfx8,
            "s_atc_probe 0x7f, s[2:3], 0x10",
            0x0000_0010_c09a_1fc1,
            "s_atc_probe 0x7f, s[2:3], 0x10",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], -16",
            0x001f_fff0_c002_0141,
            "s_load_dword s5, s[2:3], -0x10",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
            0x0e00_0010_c002_4141,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], s7, offset: 16",
            0x0e00_0010_c002_4141,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
        ),
        (
            Gfx9,
            "s_load_dword s5,s[2:3],m0 offset:-0x10",
            0xf81f_fff0_c002_4141,
            "s_load_dword s5, s[2:3], m0 offset:-0x10",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], s[7]",
            0x0000_0007_c000_0141,
            "s_load_dword s5, s[2:3], s7",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 1 + 2 * 3",
            0x0000_0007_c002_0141,
            "s_load_dword s5, s[2:3], 0x7",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 'a'",
            0x0000_0061_c002_0141,
            "s_load_dword s5, s[2:3], 0x61",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], (1 == 1)",
            0x001f_ffff_c002_0141,
            "s_load_dword s5, s[2:3], -0x1",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], -1 >> 60",
            0x0000_000f_c002_0141,
            "s_load_dword s5, s[2:3], 0xf",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 1 << 65",
            0x0000_0002_c002_0141,
            "s_load_dword s5, s[2:3], 0x2",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0xffffffffffffffff",
            0x001f_ffff_c002_0141,
            "s_load_dword s5, s[2:3], -0x1",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], lit(16u)",
            0x0000_0010_c002_0141,
            "s_load_dword s5, s[2:3], 0x10",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3] glc",
            0x0000_0000_c003_0141,
            "s_load_dword s5, s[2:3], 0x0 glc",
        ),
        (
            Gfx9,
            "s_load_dword_e32 s5, s[2:3]",
            0x0000_0000_c002_0141,
            "s_load_dword s5, s[2:3], 0x0",
        ),
        (
            Gfx9,
            "s_load_dword s5, /* c */ s[2:3], 0x10 ; glc",
            0x0000_0010_c002_0141,
            "s_load_dword s5, s[2:3], 0x10",
        ),
        (
            Gfx9,
            "s_buffer_atomic_cmpswap_x2 [s4,s5,s6,s7], s[8:11], s7",
            0x0000_0007_c184_0104,
            "s_buffer_atomic_cmpswap_x2 s[4:7], s[8:11], s7",
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 noslc noglc",
            0x0000_0010_c002_0141,
            "s_load_dword s5, s[2:3], 0x10",
        ),
        (
            Gfx10_1,
            "s_load_dword s5, s[2:3], 0x10 dlc glc",
            0xfa00_0010_f401_4141,
            "s_load_dword s5, s[2:3], 0x10 glc dlc",
        ),
        (
            Gfx10_3,
            "s_load_dword s5, s[2:3], null offset:0x10",
            0xfa00_0010_f400_0141,
            "s_load_dword s5, s[2:3], 0x10",
        ),
        (
            Gfx10_3,
            "s_load_dword s5, s[2:3], 0",
            0xfa00_0000_f400_0141,
            "s_load_dword s5, s[2:3], null",
        ),
        (
            Gfx10_3,
            "s_load_dword s5, s[2:3], s7 offset:0",
            0x0e00_0000_f400_0141,
            "s_load_dword s5, s[2:3], s7",
        ),
        (
            Gfx10_3,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
            0x0e00_0010_f400_0141,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
        ),
        (
            Gfx10_3,
            "s_load_dword s102, s[2:3], 0x10",
            0xfa00_0010_f400_1981,
            "s_load_dword s102, s[2:3], 0x10",
        ),
        (
            Gfx11,
            "s_load_dword s5, s[2:3], 0x10 glc dlc",
            0xf800_0010_f400_6141,
            "s_load_b32 s5, s[2:3], 0x10 glc dlc",
        ),
        (
            Gfx11,
            "s_load_b32 s5, s[2:3], m0",
            0xfa00_0000_f400_0141,
            "s_load_b32 s5, s[2:3], m0",
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 scope:SCOPE_SYS th:TH_LOAD_NT",
            0xf800_0010_f4e0_0141,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_NT scope:SCOPE_SYS",
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_BYPASS scope:SCOPE_SYS",
            0xf800_0010_f5e0_0141,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_BYPASS scope:SCOPE_SYS",
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_RT scope:SCOPE_CU",
            0xf800_0010_f400_0141,
            "s_load_b32 s5, s[2:3], 0x10",
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], s7",
            0x0e00_0000_f400_0141,
            "s_load_b32 s5, s[2:3], s7 offset:0x0",
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], null",
            0xf800_0000_f400_0141,
            "s_load_b32 s5, s[2:3], 0x0",
        ),
        (
            Gfx12,
            "s_load_b96 [s4,s5,s6], s[2:3], 0x10",
            0xf800_0010_f400_a101,
            "s_load_b96 s[4:6], s[2:3], 0x10",
        ),
        (
            Gfx12,
            "s_prefetch_data s[2:3], s7, 3",
            0x0e00_0000_f404_c0c1,
            "s_prefetch_data s[2:3], 0x0, s7, 3",
        ),
        (
            Gfx12,
            "s_prefetch_inst_pc_rel s7, 3",
            0x0e00_0000_f404_a0c0,
            "s_prefetch_inst_pc_rel 0x0, s7, 3",
        ),
        (
            Gfx12,
            "s_prefetch_data s[2:3], 0x10 null 3",
            0xf800_0010_f404_c0c1,
            "s_prefetch_data s[2:3], 0x10, null, 3",
        ),
        (
            Gfx12,
            "s_atc_probe 7, s[2:3], s7",
            0x0e00_0000_f404_41c1,
            "s_atc_probe 7, s[2:3], s7 offset:0x0",
        ),
        (Gfx12, "s_dcache_inv", 0x0000_0000_f404_2000, "s_dcache_inv"),
    ];
    for (gen, text, word, printed) in cases {
        let i = parse(*gen, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(encode(&i), Ok(*word), "{text}");
        assert_eq!(i.to_string(), *printed, "{text}");
        assert_eq!(parse(*gen, printed), Ok(i), "{printed}");
    }
}

/// Texts llvm-mc-19 rejects, with where and why parse rejects them.
#[test]
fn rejections() {
    use ParseErrorKind as K;
    use SmemGen::*;
    let cases: &[(SmemGen, &str, usize, ParseErrorKind)] = &[
        (Gfx9, "", 1, K::Empty),
        (Gfx9, "   ; only a comment", 20, K::Empty),
        (
            Gfx9,
            "s_frobnicate s5",
            1,
            K::UnknownMnemonic("s_frobnicate".into()),
        ),
        (
            Gfx10_3,
            "s_store_dword s5, s[2:3], 0x10",
            1,
            K::NotOnGeneration("s_store_dword".into()),
        ),
        (
            Gfx9,
            "s_load_b32 s5, s[2:3], 0x10",
            1,
            K::NotOnGeneration("s_load_b32".into()),
        ),
        (
            Gfx9,
            "s_load_dword_e64 s5, s[2:3]",
            1,
            K::VariantSuffix("_e64".into()),
        ),
        (
            Gfx8,
            "s_load_dword s5, s[2:3], -16",
            26,
            K::ImmediateRange {
                what: "offset",
                value: -16,
                min: 0,
                max: 0xf_ffff,
            },
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x100000",
            26,
            K::ImmediateRange {
                what: "offset",
                value: 0x10_0000,
                min: -0x10_0000,
                max: 0xf_ffff,
            },
        ),
        (
            Gfx9,
            "s_buffer_load_dword s5, s[4:7], s7 offset:-1",
            43,
            K::ImmediateRange {
                what: "offset",
                value: -1,
                min: 0,
                max: 0xf_ffff,
            },
        ),
        (
            Gfx12,
            "s_atc_probe 32, s[2:3], 0x10",
            13,
            K::ImmediateRange {
                what: "probe mode",
                value: 32,
                min: 0,
                max: 31,
            },
        ),
        (
            Gfx9,
            "s_atc_probe 128, s[2:3], 0x10",
            13,
            K::ImmediateRange {
                what: "probe mode",
                value: 128,
                min: 0,
                max: 127,
            },
        ),
        (
            Gfx12,
            "s_prefetch_data s[2:3], 0x10, s7, 32",
            35,
            K::ImmediateRange {
                what: "prefetch length",
                value: 32,
                min: 0,
                max: 31,
            },
        ),
        (
            Gfx9,
            "s_load_dword S5, s[2:3], 0x10",
            14,
            K::Expected("an SDATA register"),
        ),
        (
            Gfx9,
            "s_load_dwordx2 s[5:6], s[2:3], 0x10",
            16,
            K::RegisterAlignment { first: 5, align: 2 },
        ),
        (
            Gfx12,
            "s_load_b96 s[6:8], s[2:3], 0x10",
            12,
            K::RegisterAlignment { first: 6, align: 4 },
        ),
        (
            Gfx12,
            "s_load_b96 ttmp[4:6], s[2:3], 0x10",
            12,
            K::RegisterSize(3),
        ),
        (
            Gfx9,
            "s_load_dword s[4:5], s[2:3], 0x10",
            14,
            K::RegisterWidth {
                expected: 1,
                found: 2,
            },
        ),
        (
            Gfx9,
            "s_load_dword m0, s[2:3], 0x10",
            14,
            K::RegisterClass("m0".into()),
        ),
        (
            Gfx9,
            "s_load_dwordx2 exec, s[2:3], 0x10",
            16,
            K::RegisterClass("exec".into()),
        ),
        (
            Gfx9,
            "s_load_dword s102, s[2:3], 0x10",
            14,
            K::RegisterUnavailable("s102".into()),
        ),
        (
            Gfx9,
            "s_buffer_load_dword s5, s[100:103], 0x10",
            25,
            K::RegisterUnavailable("s100".into()),
        ),
        (Gfx9, "s_load_dword s5, s[2:3], s106", 26, K::RegisterIndex),
        (
            Gfx8,
            "s_load_dword s5, s[2:3], ttmp12",
            26,
            K::RegisterUnavailable("ttmp12".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, tba, 0x10",
            18,
            K::RegisterUnavailable("tba".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], null",
            26,
            K::RegisterUnavailable("null".into()),
        ),
        (
            Gfx10_3,
            "s_load_dword s5, flat_scratch, 0x10",
            18,
            K::RegisterUnavailable("flat_scratch".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], v7",
            26,
            K::RegisterNotAllowed("v7".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], src_scc",
            26,
            K::RegisterNotAllowed("src_scc".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, [s3,s2], 0x10",
            22,
            K::RegisterList("registers not consecutive"),
        ),
        (
            Gfx9,
            "s_load_dword s5, [s2,ttmp3], 0x10",
            22,
            K::RegisterList("registers of different kinds"),
        ),
        (
            Gfx9,
            "s_load_dword s5, [exec_hi,exec_lo], 0x10",
            27,
            K::RegisterList("registers not consecutive"),
        ),
        (Gfx9, "s_load_dword s5, s[3:2], 0x10", 20, K::RegisterIndex),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 dlc",
            31,
            K::Modifier("dlc".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 slc",
            31,
            K::Modifier("slc".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 noscc",
            31,
            K::Modifier("noscc".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 glc noglc",
            35,
            K::DuplicateModifier("noglc".into()),
        ),
        (
            Gfx10_3,
            "s_load_dword s5, s[2:3], 0x10 glc, dlc",
            36,
            K::Expected("no `,` between modifiers"),
        ),
        (
            Gfx9,
            "s_atc_probe 7, s[2:3], 0x10 glc",
            29,
            K::Modifier("glc".into()),
        ),
        (Gfx9, "s_dcache_inv noglc", 14, K::Modifier("noglc".into())),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 glc",
            29,
            K::Modifier("glc".into()),
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_BYPASS",
            29,
            K::CachePolicy("TH_LOAD_BYPASS needs SCOPE_SYS"),
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_LU scope:SCOPE_SYS",
            29,
            K::CachePolicy("TH_LOAD_LU with SCOPE_SYS"),
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_STORE_NT",
            32,
            K::CachePolicy("th value SMEM loads do not take"),
        ),
        (
            Gfx12,
            "s_load_b32 s5, s[2:3], 0x10 th:TH_LOAD_NT, scope:SCOPE_SE",
            44,
            K::Expected("no `,` between modifiers"),
        ),
        (
            Gfx12,
            "s_atc_probe 7, s[2:3], 0x10 th:TH_LOAD_NT",
            29,
            K::Modifier("th".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], offset:0x10",
            26,
            K::OffsetForm("it must follow a register"),
        ),
        (
            Gfx8,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
            29,
            K::OffsetForm("GFX8 has no SOFFSET"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], s7 offset:lit(4)",
            36,
            K::Symbol("lit".into()),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 0x20",
            31,
            K::TrailingInput,
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10\n s_nop 0",
            2,
            K::TrailingInput,
        ),
        (
            Gfx9,
            "s_load_dword s5",
            16,
            K::MissingOperand("an SBASE register"),
        ),
        (
            Gfx12,
            "s_prefetch_data s[2:3], 0x10, 3",
            31,
            K::Expected("an offset register"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], foo",
            26,
            K::Symbol("foo".into()),
        ),
        (Gfx9, "s_load_dword s5, s[2:3], 1.0", 26, K::RealLiteral),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 09",
            26,
            K::BadLiteral("octal"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x",
            26,
            K::BadLiteral("hexadecimal"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0b",
            26,
            K::BadLiteral("binary"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 'ab'",
            26,
            K::BadLiteral("character"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], ''",
            26,
            K::BadLiteral("character"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 'é'",
            26,
            K::BadLiteral("character"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 18446744073709551616",
            26,
            K::LiteralTooLarge,
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 1 / 0",
            28,
            K::DivisionByZero,
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 1 % 0",
            28,
            K::DivisionByZero,
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x8000000000000000 / -1",
            45,
            K::DivisionOverflow,
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 /* open",
            31,
            K::Unterminated("comment"),
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 # c",
            31,
            K::TrailingInput,
        ),
        (
            Gfx9,
            "s_load_dword s5, s[2:3], 0x10 Glc",
            31,
            K::TrailingInput,
        ),
    ];
    for (gen, text, column, kind) in cases {
        let e = parse(*gen, text).expect_err(text);
        assert_eq!((e.column, &e.kind), (*column, kind), "{text}: {e}");
        assert_eq!(e.line, 1 + text.matches('\n').count(), "{text}");
    }
    // Deep nesting is refused, not a stack overflow.
    let deep = format!(
        "s_load_dword s5, s[2:3], {}1{}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert_eq!(
        parse(SmemGen::Gfx9, &deep).map_err(|e| e.kind),
        Err(K::TooDeep)
    );
    let unary = format!("s_load_dword s5, s[2:3], {}1", "-".repeat(5000));
    assert_eq!(
        parse(SmemGen::Gfx9, &unary).map_err(|e| e.kind),
        Err(K::TooDeep)
    );
    let lists = format!(
        "s_load_dword s5, {}s2{}, 0x10",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    assert_eq!(
        parse(SmemGen::Gfx9, &lists).map_err(|e| e.kind),
        Err(K::TooDeep)
    );
}

#[test]
fn columns_count_characters() {
    let e = parse(SmemGen::Gfx9, "/* é */ s_load_dword s5, s[2:3], 1 / 0").expect_err("div");
    assert_eq!(e.column, 36);
    assert_eq!(e.to_string(), "column 36: division by zero");
    let e: Box<dyn std::error::Error> = Box::new(e);
    assert_eq!(e.to_string(), "column 36: division by zero");
    let e = parse(SmemGen::Gfx9, "\n  s_load_dword s5, s[2:3]\n  x").expect_err("two lines");
    assert_eq!((e.line, e.column), (3, 3));
    assert_eq!(
        e.to_string(),
        "line 3, column 3: unexpected text after the instruction"
    );
}

/// Processor options, checked with llvm-mc-19 -mcpu=gfx803/gfx900/gfx90a.
#[test]
fn processor_options() {
    let t = |n| crate::targets::by_name(n).expect("target");
    let o = ParseOptions::for_target(t("gfx803"), Dialect::Llvm19);
    assert!(!o.xnack && !o.scc);
    assert!(ParseOptions::for_target(t("gfx801"), Dialect::Llvm19).xnack);
    assert!(ParseOptions::for_target(t("gfx900"), Dialect::Llvm19).xnack);
    assert!(ParseOptions::for_target(t("gfx90a"), Dialect::Llvm19).scc);
    assert!(ParseOptions::for_target(t("gfx942"), Dialect::Llvm19).scc);
    assert!(!ParseOptions::for_target(t("gfx9-4-generic"), Dialect::Llvm19).scc);
    assert!(!ParseOptions::for_target(t("gfx908"), Dialect::Llvm19).scc);
    assert_eq!(ParseOptions::default(), ParseOptions::LLVM19);
    let text = "s_load_dword s5, xnack_mask, 0x10";
    assert!(parse(SmemGen::Gfx8, text).is_ok());
    let no_xnack = ParseOptions::for_target(t("gfx803"), Dialect::Llvm19);
    assert_eq!(
        parse_with(SmemGen::Gfx8, text, no_xnack).map_err(|e| e.kind),
        Err(ParseErrorKind::RegisterUnavailable("xnack_mask".into()))
    );
    let gfx90a = ParseOptions::for_target(t("gfx90a"), Dialect::Llvm19);
    let i = parse_with(SmemGen::Gfx9, "s_load_dword s5, s[2:3], 0x10 noscc", gfx90a);
    assert_eq!(
        i.map(|i| i.to_string()).as_deref(),
        Ok("s_load_dword s5, s[2:3], 0x10")
    );
}

/// LLVM 14 spellings (llvm-mc-14 -mcpu=gfx900/gfx1030 -show-encoding).
#[test]
fn llvm14_dialect() {
    let d14 = ParseOptions::new(Dialect::Llvm14);
    let p14 = |g, t: &str| parse_with(g, t, d14);
    let ok = |g, t: &str, word: u64| {
        let i = p14(g, t).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(encode(&i), Ok(word), "{t}");
    };
    ok(
        SmemGen::Gfx9,
        "s_load_dword s5, s[2:3], offset:0x10",
        0x0000_0010_c002_0141,
    );
    ok(
        SmemGen::Gfx9,
        "s_load_dword s5, s[2:3], offset:-16, glc",
        0x001f_fff0_c003_0141,
    );
    ok(
        SmemGen::Gfx10_3,
        "s_load_dword s5, s[2:3], 0x10 glc, dlc",
        0xfa00_0010_f401_4141,
    );
    ok(
        SmemGen::Gfx9,
        "s_load_dword s5, s[2:3], 16U",
        0x0000_0010_c002_0141,
    );
    ok(
        SmemGen::Gfx10_3,
        "s_load_dword s5, s[2:3], null",
        0xfa00_0000_f400_0141,
    );
    let err = |g, t: &str| p14(g, t).expect_err(t).kind;
    assert_eq!(
        err(SmemGen::Gfx9, "s_load_dword s5, s[2:3], s7 offset:0x10"),
        ParseErrorKind::OffsetForm("LLVM 14 has no register + immediate form")
    );
    assert_eq!(
        err(SmemGen::Gfx9, "s_load_dword s5, s[2:3], 16u"),
        ParseErrorKind::TrailingInput
    );
    assert_eq!(
        err(SmemGen::Gfx9, "s_load_dword s5, s[2:3], lit(16)"),
        ParseErrorKind::Symbol("lit".into())
    );
    assert_eq!(
        err(SmemGen::Gfx9, "s_load_dword s5, s[2:3], 0x10 glc,"),
        ParseErrorKind::Expected("no `,` after the last modifier")
    );
    assert_eq!(
        err(SmemGen::Gfx9, "s_load_dword s5, s[2:3], offset:0x10,"),
        ParseErrorKind::Expected("no `,` after the last modifier")
    );
    assert_eq!(
        err(SmemGen::Gfx9, "s_load_dword s5, s[2:3], glc"),
        ParseErrorKind::Llvm14ModifierAsOffset
    );
    assert_eq!(
        err(SmemGen::Gfx11, "s_load_b32 s5, s[2:3], 0x10"),
        ParseErrorKind::GenerationNotInDialect
    );
    // The LLVM 19 forms LLVM 14 lacks are accepted in the LLVM 19 dialect.
    assert!(parse(SmemGen::Gfx9, "s_load_dword s5, s[2:3], s7 offset:0x10").is_ok());
    assert!(parse(SmemGen::Gfx9, "s_load_dword s5, s[2:3], 0x10 glc,").is_ok());
}

/// `llvm-mc-14 --disassemble` of canonical words (tests/smem_parse_llvm.rs
/// checks all of them).
#[test]
fn llvm14_printing() {
    let p = |g, t: &str| parse(g, t).unwrap_or_else(|e| panic!("{t}: {e}"));
    let cases: &[(SmemGen, &str, &str)] = &[
        (
            SmemGen::Gfx8,
            "s_load_dword s5, s[2:3], 0x10 glc",
            "s_load_dword s5, s[2:3], 0x10 glc",
        ),
        (
            SmemGen::Gfx9,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
            "s_load_dword s5, s[2:3], 0x10",
        ),
        (
            SmemGen::Gfx9,
            "s_load_dword s5, s[2:3], m0 offset:-0x10",
            "s_load_dword s5, s[2:3], -0x10",
        ),
        (
            SmemGen::Gfx9,
            "s_load_dword s5, s[2:3], s7",
            "s_load_dword s5, s[2:3], s7",
        ),
        (
            SmemGen::Gfx10_3,
            "s_load_dword s5, s[2:3], s7 offset:0x10",
            "s_load_dword s5, s[2:3], s7",
        ),
        (
            SmemGen::Gfx10_3,
            "s_load_dword s5, s[2:3], null",
            "s_load_dword s5, s[2:3], 0x0",
        ),
        (
            SmemGen::Gfx10_1,
            "s_atc_probe 7, s[2:3], m0 offset:0x10",
            "s_atc_probe 7, s[2:3], m0",
        ),
        (
            SmemGen::Gfx10_1,
            "s_load_dword s5, s[2:3], -0x10 dlc",
            "s_load_dword s5, s[2:3], -0x10 dlc",
        ),
        (
            SmemGen::Gfx12,
            "s_load_b32 s5, s[2:3], s7",
            "s_load_b32 s5, s[2:3], s7 offset:0x0",
        ),
    ];
    for (g, text, llvm14) in cases {
        let i = p(*g, text);
        assert_eq!(format(&i, Dialect::Llvm14), *llvm14, "{text}");
        assert_eq!(format(&i, Dialect::Llvm19), i.to_string());
    }
    // GFX9 SOE with IMM=0: LLVM 14 reads the register from OFFSET, 0 in
    // the canonical word.
    let op = SmemGen::Gfx9.op_by_name("s_load_dword").expect("op");
    let i = Instruction::new(SmemGen::Gfx9, op, 5, 2, Offset::Soffset(7));
    assert_eq!(format(&i, Dialect::Llvm14), "s_load_dword s5, s[2:3], s0");
    assert_eq!(format(&i, Dialect::Llvm19), "s_load_dword s5, s[2:3], s7");
}

fn gens() -> impl Strategy<Value = SmemGen> {
    prop::sample::select(SmemGen::ALL.to_vec())
}

/// A valid instruction from a random word with a known opcode, in the
/// canonical form (decode of its encoding).
fn valid(gen: SmemGen, w: u64, pick: prop::sample::Index) -> Option<Instruction> {
    let op = pick.get(gen.table());
    let (lo, width) = gen.opcode_field();
    let m = ((1u64 << width) - 1) << lo;
    let w =
        (w & !(0x3f << 26) & !m) | (u64::from(gen.encoding()) << 26) | (u64::from(op.opcode) << lo);
    let d = decode(gen, w);
    match (d.verdict, d.instruction) {
        (Verdict::Valid | Verdict::NonCanonical { .. }, Some(i)) => {
            let d = decode(gen, encode(&i).ok()?);
            d.instruction
        }
        _ => None,
    }
}

/// GFX8/GFX9 SGPR tuples that reach s102/s103, which llvm-mc-19's
/// disassembler prints (`s[100:103]`) but its assembler refuses ("register
/// not available on this GPU").
fn reaches_s102(i: &Instruction) -> bool {
    let c = i.op.class;
    let past = |first: u8, width: u8| first < 102 && u16::from(first) + u16::from(width) > 102;
    !i.gen.is_rdna()
        && ((c.has_sdata_regs() && past(i.sdata, i.op.width))
            || (c.has_sbase() && past(i.sbase, if c.buffer_base() { 4 } else { 2 })))
}

/// Bytes and fragments that make parsing interesting.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            " ",
            ",",
            "[",
            "]",
            ":",
            "(",
            ")",
            "-",
            "+",
            "*",
            "/",
            "%",
            "<<",
            ">>",
            "&&",
            "||",
            "!",
            "~",
            "==",
            "<>",
            "'",
            "'a'",
            "\"",
            ";",
            "//",
            "/*",
            "*/",
            "\n",
            "0x",
            "0b",
            "07",
            "09",
            "1e3",
            "16U",
            "lit(",
            "offset:",
            "th:",
            "scope:",
            "TH_LOAD_NT",
            "SCOPE_SYS",
            "glc",
            "noglc",
            "dlc",
            "s",
            "s5",
            "s[",
            "ttmp",
            "ttmp[4:7]",
            "vcc",
            "exec_lo",
            "m0",
            "null",
            "xnack_mask",
            "tba",
            "v1",
            "src_scc",
            "é",
            "\u{0}",
            "s_load_dword",
            "s_load_b32",
            "s_prefetch_data",
            "s_atc_probe",
            "_e32",
            "_e64",
            "9223372036854775807",
            "18446744073709551615",
            "99999999999999999999999",
        ])
        .prop_map(str::to_owned),
        any::<char>().prop_map(|c| c.to_string()),
        "[0-9a-fx]{1,20}",
    ]
}

proptest! {
    /// print → parse → print is the identity on valid canonical
    /// instructions, and the parse encodes to the same word (except GFX9
    /// SOE-only words, whose text is the plain SGPR form's).
    #[test]
    fn print_parse_roundtrip(gen in gens(), w in any::<u64>(), pick in any::<prop::sample::Index>()) {
        let Some(i) = valid(gen, w, pick) else { return Ok(()) };
        let text = i.to_string();
        let parsed = parse(gen, &text);
        if reaches_s102(&i) {
            prop_assert!(
                matches!(parsed, Err(ParseError { kind: ParseErrorKind::RegisterUnavailable(_), .. })),
                "{text}: {parsed:?}"
            );
            return Ok(());
        }
        let p = parsed.map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(p.to_string(), text.clone());
        if let Offset::Soffset(r) = i.offset {
            prop_assert_eq!(p, Instruction { offset: Offset::Sgpr(r), ..i });
        } else {
            prop_assert_eq!(p, i);
            prop_assert_eq!(encode(&p), encode(&i));
        }
        // The LLVM 14 dialect reads the LLVM 14 text back to the same word
        // where LLVM 14 has the form.
        if gen.is_gfx10() || matches!(gen, SmemGen::Gfx8 | SmemGen::Gfx9) {
            let t14 = format(&i, Dialect::Llvm14);
            let p14 = parse_with(gen, &t14, ParseOptions::new(Dialect::Llvm14));
            let p14 = p14.map_err(|e| TestCaseError::fail(format!("{t14}: {e}")))?;
            prop_assert_eq!(format(&p14, Dialect::Llvm14), t14);
        }
    }

    /// Any text: no panic, and whatever parses is canonical and prints
    /// back to itself.
    #[test]
    fn arbitrary_text_never_panics(gen in gens(), text in any::<String>(), d14 in any::<bool>()) {
        let opts = ParseOptions::new(if d14 { Dialect::Llvm14 } else { Dialect::Llvm19 });
        if let Ok(i) = parse_with(gen, &text, opts) {
            prop_assert_eq!(parse(gen, &i.to_string()), Ok(i));
        }
    }

    /// Texts assembled from fragments: no panic, stable results.
    #[test]
    fn fragments_never_panic(gen in gens(), parts in prop::collection::vec(fragment(), 0..24), d14 in any::<bool>()) {
        let text: String = parts.concat();
        let opts = ParseOptions::new(if d14 { Dialect::Llvm14 } else { Dialect::Llvm19 });
        if let Ok(i) = parse_with(gen, &text, opts) {
            prop_assert_eq!(parse(gen, &i.to_string()), Ok(i));
            prop_assert!(encode(&i).is_ok());
        }
    }

    /// Valid texts with random edits: no panic; an edit that still parses
    /// gives a canonical instruction that prints back to itself.
    #[test]
    fn mutated_texts(
        gen in gens(),
        w in any::<u64>(),
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, fragment()), 1..4),
    ) {
        let Some(i) = valid(gen, w, pick) else { return Ok(()) };
        let mut text: Vec<char> = i.to_string().chars().collect();
        for (at, how, frag) in edits {
            let k = at.index(text.len() + 1);
            match how {
                0 if k < text.len() => { text.remove(k); }
                1 => { text.splice(k..k, frag.chars()); }
                2 if k < text.len() => { text[k] = text[k].to_ascii_uppercase(); }
                _ => { text.splice(k..k, [' ']); }
            }
        }
        let text: String = text.into_iter().collect();
        for d in [Dialect::Llvm19, Dialect::Llvm14] {
            if let Ok(p) = parse_with(gen, &text, ParseOptions::new(d)) {
                prop_assert_eq!(parse(gen, &p.to_string()), Ok(p));
            }
        }
    }
}
