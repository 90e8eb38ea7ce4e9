//! Unit tests of the comgr comparison.

use hsaco_oracle::msgpack::Value;

use super::metadata::diff;
use super::*;
use crate::peers::comgr::ComgrMeta;

fn s(x: &str) -> ComgrMeta {
    ComgrMeta::String(x.as_bytes().to_vec())
}

fn tree(d: &[u8]) -> ComgrMeta {
    match llvm_model(d) {
        Model::Tree(t, _) => t,
        other => panic!("{other:?}"),
    }
}

#[test]
fn floats_print_like_c() {
    assert_eq!(format_float(1.5), "1.500000e+00");
    assert_eq!(format_float(0.1), "1.000000e-01");
    assert_eq!(format_float(-2.5e300), "-2.500000e+300");
    assert_eq!(format_float(0.0), "0.000000e+00");
    assert_eq!(format_float(-0.0), "-0.000000e+00");
    assert_eq!(format_float(f64::NAN), "nan");
    assert_eq!(format_float(f64::NEG_INFINITY), "-INF");
    assert_eq!(format_float(1e-7), "1.000000e-07");
}

#[test]
fn scalars_print_like_comgr() {
    let e = |v: Value| String::from_utf8(expected_scalar(&v).expect("scalar")).expect("utf8");
    assert_eq!(e(Value::Nil), "");
    assert_eq!(e(Value::Bool(true)), "1");
    assert_eq!(e(Value::Bool(false)), "0");
    assert_eq!(e(Value::Int(-5)), "-5");
    assert_eq!(e(Value::UInt(u64::MAX)), "18446744073709551615");
    assert_eq!(e(Value::F32(1.5)), "1.500000e+00");
    assert_eq!(expected_scalar(&Value::Bin(vec![1])), None);
}

#[test]
fn model_reads_plain_maps() {
    // {"a": [1, -1], "b": nil}
    let d = [0x82, 0xa1, b'a', 0x92, 0x01, 0xff, 0xa1, b'b', 0xc0];
    assert_eq!(
        llvm_model(&d),
        Model::Tree(
            ComgrMeta::Map(vec![
                (s("a"), ComgrMeta::List(vec![s("1"), s("-1")])),
                (s("b"), s("")),
            ]),
            Vec::new()
        )
    );
}

#[test]
fn model_fills_missing_values_with_zero() {
    // {"v": [1, 2]} cut after the 1.
    let d = [0x81, 0xa1, b'v', 0x92, 0x01];
    assert_eq!(
        llvm_model(&d),
        Model::Tree(
            ComgrMeta::Map(vec![(s("v"), ComgrMeta::List(vec![s("1"), s("0")]))]),
            vec![&MD_TRUNCATED_ZERO]
        )
    );
    // A cut inside a string is refused.
    assert!(matches!(llvm_model(&[0x81, 0xa2, b'v']), Model::Reject(..)));
    // Two missing map entries repeat the key 0: refused.
    assert!(matches!(llvm_model(&[0x82]), Model::Reject(..)));
}

#[test]
fn model_keys() {
    // {"k": nil, "k": 1}: refused too (LLVM 15).
    assert!(matches!(
        llvm_model(&[0x82, 0xa1, b'k', 0xc0, 0xa1, b'k', 0x01]),
        Model::Reject(..)
    ));
    // {"k": 0, "k": 1}: refused.
    assert!(matches!(
        llvm_model(&[0x82, 0xa1, b'k', 0x00, 0xa1, b'k', 0x01]),
        Model::Reject(..)
    ));
    // {[1]: "x"} reads as {[]: 1, "x": ...}: the string becomes a key
    // and the map ends there with 1 entry of 1 declared.
    let d = [0x81, 0x91, 0x01, 0xa1, b'x'];
    assert_eq!(
        tree(&d),
        ComgrMeta::Map(vec![(ComgrMeta::List(Vec::new()), s("1"))])
    );
    // {[]: 1, []: 2}: undefined behaviour (comgr crashes).
    assert!(matches!(
        llvm_model(&[0x82, 0x90, 0x01, 0x90, 0x02]),
        Model::Crash(_)
    ));
    // {[]: 1, {}: 2}: different kinds order fine.
    assert!(matches!(
        llvm_model(&[0x82, 0x90, 0x01, 0x80, 0x02]),
        Model::Tree(..)
    ));
    // Ext and bin are refused, bin as a known quirk.
    assert!(
        matches!(llvm_model(&[0x81, 0xa1, b'k', 0xd4, 0x01, 0x00]), Model::Reject(_, q) if q.is_empty())
    );
    assert!(
        matches!(llvm_model(&[0x81, 0xa1, b'k', 0xc4, 0x00]), Model::Reject(_, q) if q == vec![&MD_BINARY])
    );
    // A root that is not a map is refused; trailing bytes are ignored.
    assert!(matches!(llvm_model(&[0x90]), Model::Reject(..)));
    assert_eq!(tree(&[0x80, 0xc1, 0xc1]), ComgrMeta::Map(Vec::new()));
}

#[test]
fn diff_compares_maps_by_key() {
    let a = ComgrMeta::Map(vec![
        (s("x"), s("1")),
        (s("y"), ComgrMeta::List(vec![s("2")])),
    ]);
    let b = ComgrMeta::Map(vec![
        (s("y"), ComgrMeta::List(vec![s("3")])),
        (s("x"), s("1")),
    ]);
    let mut out = Vec::new();
    diff("", &a, &b, &mut out);
    assert_eq!(
        out,
        vec![("/y/0".to_string(), "\"2\"".to_string(), "\"3\"".to_string())]
    );
    // Repeated keys: values compared whatever the order of their maps.
    let m1 = ComgrMeta::Map(vec![(s("a"), s("1")), (s("b"), s("2"))]);
    let m2 = ComgrMeta::Map(vec![(s("b"), s("2")), (s("a"), s("1"))]);
    let rep1 = ComgrMeta::Map(vec![(s("k"), m1.clone()), (s("k"), s("x"))]);
    let rep2 = ComgrMeta::Map(vec![(s("k"), s("x")), (s("k"), m2)]);
    assert_eq!(tree_differences(&rep1, &rep2), Vec::new());
    let c = ComgrMeta::Map(vec![(s("x"), s("1"))]);
    out.clear();
    diff("", &a, &c, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0, "/y");
    assert_eq!(out[0].2, "(no such key)");
}

#[test]
fn yaml_scalars_print_like_comgr() {
    assert_eq!(yaml_scalar("64"), "64");
    assert_eq!(yaml_scalar("0x10"), "16");
    assert_eq!(yaml_scalar("-3"), "-3");
    assert_eq!(yaml_scalar("true"), "true");
    assert_eq!(yaml_scalar("2.0"), "2.000000e+00");
    assert_eq!(yaml_scalar("group_ids_yz@kd"), "group_ids_yz@kd");
    assert_eq!(yaml_scalar("GlobalBuffer"), "GlobalBuffer");
    assert_eq!(yaml_scalar("n"), "false");
    assert_eq!(yaml_scalar("On"), "true");
    assert_eq!(yaml_scalar("nn"), "nn");
    assert_eq!(yaml_scalar("017"), "15");
    assert_eq!(yaml_scalar("-inf"), "-INF");
    assert_eq!(yaml_scalar("~"), "~");
}
