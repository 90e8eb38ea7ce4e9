use super::*;
use proptest::prelude::*;

fn enc(v: Value) -> Vec<u8> {
    encode(&v)
}

#[test]
fn smallest_forms() {
    assert_eq!(enc(Value::UInt(0)), [0x00]);
    assert_eq!(enc(Value::UInt(127)), [0x7f]);
    assert_eq!(enc(Value::UInt(128)), [0xcc, 0x80]);
    assert_eq!(enc(Value::UInt(255)), [0xcc, 0xff]);
    assert_eq!(enc(Value::UInt(256)), [0xcd, 0x01, 0x00]);
    assert_eq!(enc(Value::UInt(65536)), [0xce, 0, 1, 0, 0]);
    assert_eq!(enc(Value::UInt(1 << 32)), [0xcf, 0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(enc(Value::Int(-1)), [0xff]);
    assert_eq!(enc(Value::Int(-32)), [0xe0]);
    assert_eq!(enc(Value::Int(-33)), [0xd0, 0xdf]);
    assert_eq!(enc(Value::Int(5)), [0xd0, 0x05]);
    assert_eq!(enc(Value::Int(-129)), [0xd1, 0xff, 0x7f]);
    assert_eq!(enc(Value::Int(i64::MIN)), [0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(enc(Value::str("")), [0xa0]);
    assert_eq!(enc(Value::Str(vec![b'a'; 31]))[0], 0xbf);
    assert_eq!(enc(Value::Str(vec![b'a'; 32]))[..2], [0xd9, 32]);
    assert_eq!(enc(Value::Str(vec![b'a'; 256]))[..3], [0xda, 1, 0]);
    assert_eq!(enc(Value::Bin(vec![])), [0xc4, 0]);
    assert_eq!(enc(Value::Array(vec![Value::Nil; 15]))[0], 0x9f);
    assert_eq!(enc(Value::Array(vec![Value::Nil; 16]))[..3], [0xdc, 0, 16]);
    assert_eq!(
        enc(Value::Map(vec![(Value::Nil, Value::Nil); 16]))[..3],
        [0xde, 0, 16]
    );
    assert_eq!(enc(Value::Ext(-1, vec![0; 4]))[..2], [0xd6, 0xff]);
    assert_eq!(enc(Value::Ext(3, vec![0; 3]))[..3], [0xc7, 3, 3]);
    assert_eq!(enc(Value::F32(1.5)), [0xca, 0x3f, 0xc0, 0, 0]);
    assert_eq!(enc(Value::Bool(true)), [0xc3]);
}

#[test]
fn decodes_every_format() {
    let cases: &[(&[u8], Value)] = &[
        (&[0xc0], Value::Nil),
        (&[0xc2], Value::Bool(false)),
        (&[0x05], Value::UInt(5)),
        (&[0xcc, 0x05], Value::UInt(5)),
        (&[0xcd, 0, 5], Value::UInt(5)),
        (&[0xce, 0, 0, 0, 5], Value::UInt(5)),
        (&[0xcf, 0, 0, 0, 0, 0, 0, 0, 5], Value::UInt(5)),
        (&[0xd0, 0xfb], Value::Int(-5)),
        (&[0xd1, 0xff, 0xfb], Value::Int(-5)),
        (&[0xd2, 0xff, 0xff, 0xff, 0xfb], Value::Int(-5)),
        (
            &[0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfb],
            Value::Int(-5),
        ),
        (&[0xfb], Value::Int(-5)),
        (&[0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0], Value::F64(1.5)),
        (&[0xa2, b'h', b'i'], Value::Str(b"hi".to_vec())),
        (&[0xd9, 2, b'h', b'i'], Value::Str(b"hi".to_vec())),
        (&[0xda, 0, 2, b'h', b'i'], Value::Str(b"hi".to_vec())),
        (&[0xdb, 0, 0, 0, 2, b'h', b'i'], Value::Str(b"hi".to_vec())),
        (&[0xc5, 0, 1, 7], Value::Bin(vec![7])),
        (&[0xc6, 0, 0, 0, 1, 7], Value::Bin(vec![7])),
        (&[0xc8, 0, 1, 9, 7], Value::Ext(9, vec![7])),
        (&[0xc9, 0, 0, 0, 1, 9, 7], Value::Ext(9, vec![7])),
        (&[0xd4, 9, 7], Value::Ext(9, vec![7])),
        (&[0xd5, 9, 7, 7], Value::Ext(9, vec![7, 7])),
        (
            &[0xd7, 9, 0, 0, 0, 0, 0, 0, 0, 0],
            Value::Ext(9, vec![0; 8]),
        ),
        (&[0xdc, 0, 1, 0xc0], Value::Array(vec![Value::Nil])),
        (&[0xdd, 0, 0, 0, 1, 0xc0], Value::Array(vec![Value::Nil])),
        (
            &[0xdf, 0, 0, 0, 1, 0x01, 0xc0],
            Value::Map(vec![(Value::UInt(1), Value::Nil)]),
        ),
        (
            &[0x82, 0x01, 0xc0, 0x01, 0xc3],
            Value::Map(vec![
                (Value::UInt(1), Value::Nil),
                (Value::UInt(1), Value::Bool(true)),
            ]),
        ),
    ];
    for (bytes, want) in cases {
        assert_eq!(
            decode(bytes),
            Ok((want.clone(), bytes.len())),
            "{bytes:02x?}"
        );
    }
}

#[test]
fn errors_carry_offsets() {
    assert_eq!(
        decode(&[0x92, 0x01, 0xc1]),
        Err(DecodeError {
            offset: 2,
            kind: DecodeErrorKind::InvalidByte(0xc1)
        })
    );
    assert_eq!(
        decode(&[0x92, 0x01]),
        Err(DecodeError {
            offset: 2,
            kind: DecodeErrorKind::Truncated
        })
    );
    assert_eq!(
        decode(&[0xa3, b'a']),
        Err(DecodeError {
            offset: 1,
            kind: DecodeErrorKind::Truncated
        })
    );
    assert_eq!(
        decode(&[]),
        Err(DecodeError {
            offset: 0,
            kind: DecodeErrorKind::Truncated
        })
    );
    let deep = vec![0x91u8; MAX_DEPTH + 1];
    assert_eq!(
        decode(&deep),
        Err(DecodeError {
            offset: MAX_DEPTH,
            kind: DecodeErrorKind::TooDeep
        })
    );
    let mut ok = vec![0x91u8; MAX_DEPTH - 1];
    ok.push(0x90);
    assert_eq!(decode(&ok).map(|(_, n)| n), Ok(MAX_DEPTH));
}

#[test]
fn huge_claimed_lengths_do_not_allocate() {
    // Would need 4 GiB of elements; must fail fast with Truncated.
    for bytes in [
        &[0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0][..],
        &[0xdf, 0xff, 0xff, 0xff, 0xff, 0xc0, 0xc0][..],
        &[0xdb, 0xff, 0xff, 0xff, 0xff, b'a'][..],
        &[0xc6, 0xff, 0xff, 0xff, 0xff][..],
        &[0xc9, 0xff, 0xff, 0xff, 0xff, 1][..],
    ] {
        assert_eq!(
            decode(bytes).map_err(|e| e.kind),
            Err(DecodeErrorKind::Truncated)
        );
    }
}

#[test]
fn trailing_bytes_are_left_to_the_caller() {
    assert_eq!(decode(&[0x01, 0x02]), Ok((Value::UInt(1), 1)));
}

#[test]
fn spans_point_at_values() {
    // {"a": [1, 300]}
    let bytes = [0x81, 0xa1, b'a', 0x92, 0x01, 0xcd, 0x01, 0x2c];
    let (v, s, n) = decode_spanned(&bytes).unwrap();
    assert_eq!(n, bytes.len());
    assert_eq!(
        v.get("a"),
        Some(&Value::Array(vec![Value::UInt(1), Value::UInt(300)]))
    );
    assert_eq!(s.offset, 0);
    assert_eq!(s.key(0).map(|k| k.offset), Some(1));
    let arr = s.value(0).unwrap();
    assert_eq!(arr.offset, 3);
    assert_eq!(arr.element(0).map(|e| e.offset), Some(4));
    assert_eq!(arr.element(1).map(|e| e.offset), Some(5));
    assert_eq!(arr.element(2), None);
}

#[test]
fn nan_round_trips() {
    let v = Value::F64(f64::from_bits(0x7ff8_0000_0000_0001));
    assert_eq!(decode(&encode(&v)), Ok((v.clone(), 9)));
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Nil),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        (-200i64..200).prop_map(Value::Int),
        any::<u64>().prop_map(Value::UInt),
        (0u64..70000).prop_map(Value::UInt),
        any::<u32>().prop_map(|b| Value::F32(f32::from_bits(b))),
        any::<u64>().prop_map(|b| Value::F64(f64::from_bits(b))),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(Value::Str),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(Value::Bin),
        (any::<i8>(), proptest::collection::vec(any::<u8>(), 0..20))
            .prop_map(|(t, d)| Value::Ext(t, d)),
    ];
    leaf.prop_recursive(4, 64, 20, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::Array),
            proptest::collection::vec((inner.clone(), inner), 0..20).prop_map(Value::Map),
        ]
    })
}

/// Offset of the first extension value in pre-order.
fn first_ext(v: &Value, s: &Span) -> Option<usize> {
    match v {
        Value::Ext(..) => Some(s.offset),
        Value::Array(a) => a.iter().zip(&s.children).find_map(|(v, s)| first_ext(v, s)),
        Value::Map(m) => m
            .iter()
            .flat_map(|(k, v)| [k, v])
            .zip(&s.children)
            .find_map(|(v, s)| first_ext(v, s)),
        _ => None,
    }
}

/// Two decodings of the same bytes agree: both succeed and `same` holds
/// of what they give, or both fail with the same error. `names` name the
/// two decoders in a failure.
fn agree<A, B>(
    a: Result<A, DecodeError>,
    b: Result<B, DecodeError>,
    names: [&str; 2],
    same: impl FnOnce(A, B) -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    match (a, b) {
        (Ok(a), Ok(b)) => same(a, b),
        (Err(a), Err(b)) => {
            prop_assert_eq!(a, b);
            Ok(())
        }
        (a, b) => {
            let [na, nb] = names;
            prop_assert!(false, "{na} {:?} vs {nb} {:?}", a.err(), b.err());
            Ok(())
        }
    }
}

/// `decode_flat` gives what `decode_spanned` gives: the same tree (read
/// back through `to_value`), length, first extension, or error.
fn flat_agrees(bytes: &[u8]) -> Result<(), TestCaseError> {
    let same = |(v, span, used): (Value, Span, usize), (flat, used2): (Flat<'_>, usize)| {
        prop_assert_eq!(used, used2);
        prop_assert_eq!(flat.first_ext(), first_ext(&v, &span));
        let (v2, span2) = flat.to_value(0).unwrap();
        prop_assert_eq!(&v2, &v);
        prop_assert_eq!(&span2, &span);
        prop_assert_eq!(
            flat.items().first().map(|it| it.end(0)),
            Some(flat.items().len())
        );
        for (i, it) in flat.items().iter().enumerate() {
            prop_assert!(it.end(i) > i && it.end(i) <= flat.items().len());
        }
        Ok(())
    };
    agree(
        decode_spanned(bytes),
        decode_flat(bytes),
        ["spanned", "flat"],
        same,
    )
}

#[test]
fn flat_navigation() {
    // {"a": [1, {"b": nil}], "c": "d"}
    let v = Value::Map(vec![
        (
            Value::str("a"),
            Value::Array(vec![
                Value::UInt(1),
                Value::Map(vec![(Value::str("b"), Value::Nil)]),
            ]),
        ),
        (Value::str("c"), Value::str("d")),
    ]);
    let bytes = encode(&v);
    let (flat, used) = decode_flat(&bytes).unwrap();
    assert_eq!(used, bytes.len());
    let kinds: Vec<&str> = (0..flat.items().len())
        .map(|i| flat.raw(i).unwrap().kind_name())
        .collect();
    assert_eq!(
        kinds,
        [
            "map",
            "string",
            "array",
            "unsigned integer",
            "map",
            "string",
            "nil",
            "string",
            "string"
        ]
    );
    assert_eq!(flat.entries(0).collect::<Vec<_>>(), [(1, 2), (7, 8)]);
    assert_eq!(flat.children(2).collect::<Vec<_>>(), [3, 4]);
    assert_eq!(flat.entries(2).count(), 0);
    assert_eq!(flat.map_get(0, "c"), Some(8));
    assert_eq!(flat.raw(8), Some(Raw::Str(b"d")));
    assert_eq!(flat.map_get(0, "b"), None);
    assert_eq!(flat.map_get(4, "b"), Some(6));
    assert_eq!(flat.offset(8), Some(bytes.len() - 2));
    assert_eq!(flat.children(99).count(), 0);
}

/// Every array and map of `bytes` as a template.
fn templates_of(bytes: &[u8]) -> Vec<Template<'_>> {
    decode_flat(bytes)
        .map(|(f, _)| (0..f.items().len()).filter_map(|i| f.template(i)).collect())
        .unwrap_or_default()
}

/// `decode_flat_with` gives exactly what `decode_flat` gives: the same
/// items, first extension, map count and length, or the same error.
fn templates_agree(bytes: &[u8], templates: &[Template<'_>]) -> Result<(), TestCaseError> {
    let same = |(a, used): (Flat<'_>, usize), (b, used2): (Flat<'_>, usize)| {
        prop_assert_eq!(used, used2);
        prop_assert_eq!(a.items(), b.items());
        prop_assert_eq!(a.first_ext(), b.first_ext());
        prop_assert_eq!(a.map_count(), b.map_count());
        Ok(())
    };
    let b = decode_flat_with(bytes, templates);
    agree(decode_flat(bytes), b, ["plain", "templates"], same)
}

#[test]
fn templates_respect_the_depth_limit() {
    // A template ten arrays deep, met where only five more fit.
    let mut inner = vec![0x91u8; 10];
    inner.push(0xc0);
    let templates = templates_of(&inner);
    assert_eq!(templates.first().map(|t| t.depth), Some(10));
    let mut doc = vec![0x91u8; MAX_DEPTH - 5];
    doc.extend_from_slice(&inner);
    let e = decode_flat_with(&doc, &templates).unwrap_err();
    assert_eq!(e, decode_flat(&doc).unwrap_err());
    assert_eq!(e.kind, DecodeErrorKind::TooDeep);
    // Where it fits, it is used and changes nothing.
    let mut doc = vec![0x91u8; MAX_DEPTH - 10];
    doc.extend_from_slice(&inner);
    let (a, _) = decode_flat(&doc).unwrap();
    let (b, _) = decode_flat_with(&doc, &templates).unwrap();
    assert_eq!(a.items(), b.items());
}

#[test]
fn flat_depth_limit_matches() {
    let mut deep = vec![0x91u8; MAX_DEPTH];
    deep.push(0xc0);
    assert!(decode_flat(&deep).is_ok());
    deep.insert(0, 0x91);
    let e = decode_flat(&deep).unwrap_err();
    assert_eq!(e, decode(&deep).unwrap_err());
    assert_eq!(e.kind, DecodeErrorKind::TooDeep);
    assert_eq!(e.offset, MAX_DEPTH);
}

proptest! {
    #[test]
    fn encode_decode_round_trip(v in arb_value()) {
        let bytes = encode(&v);
        let (back, used) = decode(&bytes).unwrap();
        prop_assert_eq!(used, bytes.len());
        prop_assert_eq!(&back, &v);
        // Canonical: re-encoding the decoded value gives the same bytes.
        prop_assert_eq!(encode(&back), bytes.clone());
        // The spanned decoder agrees with the plain one.
        let (back2, span, used2) = decode_spanned(&bytes).unwrap();
        prop_assert_eq!(back2, v);
        prop_assert_eq!(used2, used);
        prop_assert_eq!(span.offset, 0);
    }

    #[test]
    fn decode_random_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        match decode(&bytes) {
            Ok((v, used)) => {
                prop_assert!(used <= bytes.len());
                prop_assert!(used > 0);
                // Whatever decodes re-decodes the same from its encoding.
                prop_assert_eq!(decode(&encode(&v)).map(|(x, _)| x), Ok(v));
            }
            Err(e) => prop_assert!(e.offset <= bytes.len()),
        }
        let _ = decode_spanned(&bytes);
    }

    #[test]
    fn flat_agrees_with_spanned_on_values(v in arb_value(), junk in proptest::collection::vec(any::<u8>(), 0..4)) {
        let mut bytes = encode(&v);
        bytes.extend_from_slice(&junk);
        flat_agrees(&bytes)?;
    }

    #[test]
    fn templates_change_nothing(
        v in arb_value(),
        w in arb_value(),
        junk in proptest::collection::vec(any::<u8>(), 0..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let first = encode(&v);
        let templates = templates_of(&first);
        templates_agree(&first, &templates)?;
        // The values again, elsewhere and at other depths, in another
        // document; then that document cut short.
        let mut other = encode(&Value::Array(vec![
            w.clone(),
            v.clone(),
            Value::Map(vec![(v, w)]),
        ]));
        other.extend_from_slice(&junk);
        templates_agree(&other, &templates)?;
        templates_agree(&other[..cut.index(other.len())], &templates)?;
    }

    #[test]
    fn flat_agrees_with_spanned_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        flat_agrees(&bytes)?;
    }

    #[test]
    fn truncation_is_an_error(v in arb_value(), cut in any::<prop::sample::Index>()) {
        let bytes = encode(&v);
        let n = cut.index(bytes.len());
        prop_assert_eq!(decode(&bytes[..n]).map_err(|e| e.kind), Err(DecodeErrorKind::Truncated));
    }
}
