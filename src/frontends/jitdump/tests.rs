use super::*;
use crate::bytes::Endian;

/// A little- or big-endian file builder with a comment per field at the call sites.
pub(crate) struct Builder {
    pub bytes: Vec<u8>,
    big: bool,
}

impl Builder {
    pub fn new(big: bool) -> Self {
        Builder {
            bytes: Vec::new(),
            big,
        }
    }
    pub fn u32(&mut self, v: u32) -> &mut Self {
        let b = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend_from_slice(&b);
        self
    }
    pub fn u64(&mut self, v: u64) -> &mut Self {
        let b = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.bytes.extend_from_slice(&b);
        self
    }
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }
    pub fn header(&mut self, version: u32, size: u32) -> &mut Self {
        self.u32(MAGIC) // magic
            .u32(version) // version
            .u32(size) // total_size
            .u32(62) // elf_mach: x86-64
            .u32(0xDEAD_BEEF) // pad1
            .u32(4242) // pid
            .u64(1_000) // timestamp
            .u64(0) // flags
    }
    pub fn load(&mut self, ts: u64, addr: u64, size: u64, index: u64, name: &str) -> &mut Self {
        let total = 56 + name.len() as u64 + 1 + size;
        self.u32(0) // id: CODE_LOAD
            .u32(total as u32) // total_size
            .u64(ts) // timestamp
            .u32(4242) // pid
            .u32(4243) // tid
            .u64(addr) // vma
            .u64(addr) // code_addr
            .u64(size) // code_size
            .u64(index) // code_index
            .raw(name.as_bytes())
            .raw(&[0]); // name + NUL
        for i in 0..size {
            self.bytes.push(i as u8); // code bytes
        }
        self
    }
}

#[test]
fn reads_both_byte_orders() {
    for big in [false, true] {
        let mut b = Builder::new(big);
        b.header(1, 40).load(10, 0x1000, 4, 7, "f");
        b.u32(1) // id: CODE_MOVE
            .u32(64) // total_size
            .u64(11) // timestamp
            .u32(1) // pid
            .u32(2) // tid
            .u64(0x2000) // vma
            .u64(0x1000) // old
            .u64(0x2000) // new
            .u64(4) // size
            .u64(7); // index
        b.u32(3).u32(16).u64(12); // CODE_CLOSE
        let mut r = JitDumpReader::new(&b.bytes).unwrap();
        assert_eq!(r.header().pid, 4242);
        assert_eq!(r.header().pad1, 0xDEAD_BEEF);
        let (h, rec) = r.next_record().unwrap().unwrap();
        assert_eq!((h.offset, h.timestamp), (40, 10));
        let Record::CodeLoad(l) = rec else {
            panic!("{rec:?}")
        };
        assert_eq!(
            (l.code_addr, l.code_size, l.code_index, l.name),
            (0x1000, 4, 7, &b"f"[..])
        );
        assert_eq!(l.code, &[0, 1, 2, 3]);
        let (_, rec) = r.next_record().unwrap().unwrap();
        assert!(
            matches!(rec, Record::CodeMove(m) if m.new_code_addr == 0x2000 && m.code_index == 7)
        );
        assert!(matches!(r.next_record().unwrap().unwrap().1, Record::Close));
        assert!(r.next_record().unwrap().is_none());
    }
}

#[test]
fn unknown_and_unwinding_records() {
    let mut b = Builder::new(false);
    b.header(1, 40);
    b.u32(7).u32(24).u64(1).u64(0xFFFF); // id 7, unknown: skipped by size
    b.u32(4) // UNWINDING_INFO
        .u32(40 + 24) // total_size
        .u64(2) // timestamp
        .u64(20) // unwinding_size
        .u64(20) // eh_frame_hdr_size
        .u64(0) // mapped_size
        .raw(&[1, 0x1b, 3, 0x3b])
        .raw(&[0; 20]); // eh_frame_hdr + padding
    b.load(3, 0x10, 1, 0, "f");
    let mut r = JitDumpReader::new(&b.bytes).unwrap();
    assert!(matches!(
        r.next_record().unwrap().unwrap(),
        (h, Record::Unknown { payload }) if h.id == 7 && payload.len() == 8
    ));
    assert!(matches!(
        r.next_record().unwrap().unwrap().1,
        Record::UnwindingInfo(u) if u.unwinding_size == 20 && u.mapped_size == 0 && u.data.len() == 24
    ));
    let (_, s) = scan(&b.bytes).unwrap();
    assert_eq!((s.by_type, s.unknown), ([1, 0, 0, 0, 1], 1));
    // A typed warning: the record's offset (right after the 40-byte header) as a location,
    // displayed as the sentence `show` prints.
    assert_eq!(
        s.warnings[0].location,
        Some(crate::error::Location::Offset(40))
    );
    assert_eq!(
        s.warnings[0].to_string(),
        "at offset 0x28: record type 7 is unknown; skipped (and any further ones, counted)"
    );
    // CPython 3.13: mapped_size rounded up past unwinding_size is no problem; an
    // unwinding_size beyond the record's data is.
    for (unwinding, mapped, warns) in [(20u64, 32u64, false), (25, 32, true)] {
        let mut b = Builder::new(false);
        b.header(1, 40);
        b.u32(4) // UNWINDING_INFO
            .u32(40 + 24) // total_size
            .u64(2) // timestamp
            .u64(unwinding) // unwinding_size
            .u64(20) // eh_frame_hdr_size
            .u64(mapped) // mapped_size
            .raw(&[0; 24]); // unwinding data + padding
        let (_, s) = scan(&b.bytes).unwrap();
        assert_eq!(!s.warnings.is_empty(), warns, "{:?}", s.warnings);
    }
}

#[test]
fn header_quirks() {
    // Mono: version 2, header total_size 32 (read from 40).
    let mut b = Builder::new(false);
    b.header(2, 32).load(1, 0x10, 1, 0, "m");
    let mut r = JitDumpReader::new(&b.bytes).unwrap();
    assert_eq!(r.offset(), 40);
    assert!(r.next_record().unwrap().is_some());
    // A larger header is followed.
    let mut b = Builder::new(false);
    b.header(1, 48)
        .u64(0xFFFF_FFFF_FFFF_FFFF)
        .load(1, 0x10, 1, 0, "m");
    let mut r = JitDumpReader::new(&b.bytes).unwrap();
    assert_eq!(r.offset(), 48);
    assert!(matches!(
        r.next_record().unwrap().unwrap().1,
        Record::CodeLoad(_)
    ));
    // Version 3 is refused with its own message, at the version's offset.
    let mut b = Builder::new(false);
    b.header(3, 40);
    let e = JitDumpReader::new(&b.bytes).unwrap_err();
    assert_eq!(e.offset(), Some(4));
    assert!(e.to_string().contains("version 3"), "{e}");
    let e = JitDumpReader::new(b"ELF\x7f").unwrap_err();
    assert!(e.to_string().contains("jitdump"), "{e}");
}

#[test]
fn malformed_sizes_are_errors_with_offsets() {
    // A record smaller than its header ends the walk.
    let mut b = Builder::new(false);
    b.header(1, 40).load(1, 0x10, 1, 0, "a");
    let second = b.bytes.len() as u64;
    b.u32(0).u32(8).u64(2);
    let mut r = JitDumpReader::new(&b.bytes).unwrap();
    assert!(r.next_record().unwrap().is_some());
    let e = r.next_record().unwrap_err();
    assert_eq!(e.offset(), Some(second + 4));
    assert!(r.next_record().unwrap().is_none());
    // A CODE_LOAD of 20 bytes is skipped with an error; the next record is read.
    let mut b = Builder::new(false);
    b.header(1, 40);
    b.u32(0).u32(20).u64(1).u32(0);
    b.load(2, 0x20, 1, 1, "b");
    let mut r = JitDumpReader::new(&b.bytes).unwrap();
    assert_eq!(r.next_record().unwrap_err().offset(), Some(44));
    assert!(matches!(
        r.next_record().unwrap().unwrap().1,
        Record::CodeLoad(l) if l.name == b"b"
    ));
    // A record past the end: truncated, with its start offset.
    let mut b = Builder::new(false);
    b.header(1, 40).load(1, 0x10, 100, 0, "a");
    b.bytes.truncate(b.bytes.len() - 10);
    let mut r = JitDumpReader::new(&b.bytes).unwrap();
    let e = r.next_record().unwrap_err();
    assert_eq!(e.offset(), Some(40));
    assert!(
        e.to_string()
            .contains("CODE_LOAD record (the file ends inside it)"),
        "{e}"
    );
}

#[test]
fn every_truncation_is_an_error_or_a_prefix() {
    let mut b = Builder::new(false);
    b.header(1, 40).load(1, 0x10, 5, 0, "alpha");
    b.u32(2) // DEBUG_INFO
        .u32(32 + 16 + 2) // total_size
        .u64(2) // ts
        .u64(0x30) // code_addr
        .u64(1) // nr_entry
        .u64(0x30) // addr
        .u32(1) // lineno
        .u32(0) // discrim
        .raw(b"x\0");
    b.load(3, 0x30, 3, 1, "beta");
    let full = b.bytes.clone();
    for n in 0..=full.len() {
        let Ok(mut r) = JitDumpReader::new(&full[..n]) else {
            assert!(n < 40);
            continue;
        };
        let mut loads = 0;
        loop {
            match r.next_record() {
                Ok(Some((_, Record::CodeLoad(_)))) => loads += 1,
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => assert!(e.offset().is_some()),
            }
        }
        assert!(loads <= 2);
    }
}

#[test]
fn corrupted_debug_names_are_walked_by_address() {
    // node 20: 16 bytes of allocator data (with NULs) in front of the real name.
    let mut b = Builder::new(false);
    let garbage: &[u8] = &[
        0x2f, 0x7c, 0xb3, 0x18, 0, 0, 0, 0, 0xc3, 0xda, 0xaf, 0xcd, 0x87, 0xb7, 0x7b, 0xf7,
    ];
    b.u64(0x1040)
        .u32(3)
        .u32(5)
        .raw(garbage)
        .raw(b"pus/a/work.js\0");
    b.u64(0x1050).u32(4).u32(1).raw(garbage).raw(b"rk.js\0");
    b.raw(&[0, 0, 0]); // padding
    let d = DebugInfo {
        code_addr: 0x1000,
        nr_entry: 2,
        data: &b.bytes,
        data_offset: 100,
        endian: Endian::Little,
    };
    let v: Vec<_> = d.entries(Some(0x80)).map(Result::unwrap).collect();
    assert_eq!(v.len(), 2);
    assert!(v[0].corrupted && v[1].corrupted);
    assert!(v[0].name.ends_with(b"pus/a/work.js"));
    assert_eq!(v[1].lineno, 4);
    // Intact names are not corrupted.
    let mut b = Builder::new(false);
    b.u64(0x1040).u32(3).u32(5).raw(b"node:internal/util\0");
    let d = DebugInfo {
        code_addr: 0x1000,
        nr_entry: 1,
        data: &b.bytes,
        data_offset: 0,
        endian: Endian::Little,
    };
    let v: Vec<_> = d.entries(None).map(Result::unwrap).collect();
    assert_eq!(v[0].name, b"node:internal/util");
    assert!(!v[0].corrupted);
}
