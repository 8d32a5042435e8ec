//! Thrift compact protocol, write side only: what Parquet's footer and page headers need.

pub const BOOL_TRUE: u8 = 1;
pub const BOOL_FALSE: u8 = 2;
pub const BYTE: u8 = 3;
pub const I32: u8 = 5;
pub const I64: u8 = 6;
pub const BINARY: u8 = 8;
pub const LIST: u8 = 9;
pub const STRUCT: u8 = 12;

pub struct Writer {
    pub buf: Vec<u8>,
    last: Vec<i16>, // last field id per open struct
}

impl Default for Writer {
    fn default() -> Self {
        Writer { buf: Vec::new(), last: vec![0] }
    }
}

pub fn varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

impl Writer {
    fn header(&mut self, id: i16, typ: u8) {
        let last = self.last.last_mut().expect("struct stack");
        let delta = id - *last;
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | typ);
        } else {
            self.buf.push(typ);
            varint(&mut self.buf, zigzag(id as i64));
        }
        *last = id;
    }
    pub fn i32(&mut self, id: i16, v: i32) {
        self.header(id, I32);
        varint(&mut self.buf, zigzag(v as i64));
    }
    pub fn i64(&mut self, id: i16, v: i64) {
        self.header(id, I64);
        varint(&mut self.buf, zigzag(v));
    }
    pub fn byte(&mut self, id: i16, v: i8) {
        self.header(id, BYTE);
        self.buf.push(v as u8);
    }
    pub fn bool(&mut self, id: i16, v: bool) {
        self.header(id, if v { BOOL_TRUE } else { BOOL_FALSE });
    }
    pub fn binary(&mut self, id: i16, v: &[u8]) {
        self.header(id, BINARY);
        varint(&mut self.buf, v.len() as u64);
        self.buf.extend_from_slice(v);
    }
    /// Open a struct field; close it with `end`.
    pub fn begin(&mut self, id: i16) {
        self.header(id, STRUCT);
        self.last.push(0);
    }
    /// Close a struct (field or list element).
    pub fn end(&mut self) {
        self.buf.push(0);
        self.last.pop();
    }
    pub fn list(&mut self, id: i16, elem: u8, n: usize) {
        self.header(id, LIST);
        self.list_header(elem, n);
    }
    fn list_header(&mut self, elem: u8, n: usize) {
        if n < 15 {
            self.buf.push(((n as u8) << 4) | elem);
        } else {
            self.buf.push(0xF0 | elem);
            varint(&mut self.buf, n as u64);
        }
    }
    /// A struct element of a list; close it with `end`.
    pub fn begin_elem(&mut self) {
        self.last.push(0);
    }
    pub fn i32_elem(&mut self, v: i32) {
        varint(&mut self.buf, zigzag(v as i64));
    }
    pub fn binary_elem(&mut self, v: &[u8]) {
        varint(&mut self.buf, v.len() as u64);
        self.buf.extend_from_slice(v);
    }
    /// End of the top-level struct.
    pub fn stop(&mut self) {
        self.buf.push(0);
    }
    /// A ColumnChunk's ColumnMetaData up to its data page offset (field 3 opened: the caller adds what else it
    /// has and closes it): an uncompressed chunk of `size` bytes.
    pub fn column_meta(&mut self, physical: i32, encodings: &[i32], name: &str, values: i64, size: i64, data: i64) {
        self.begin(3);
        self.i32(1, physical);
        self.list(2, I32, encodings.len());
        for &e in encodings {
            self.i32_elem(e);
        }
        self.list(3, BINARY, 1);
        self.binary_elem(name.as_bytes());
        self.i32(4, 0); // UNCOMPRESSED
        self.i64(5, values);
        self.i64(6, size);
        self.i64(7, size);
        self.i64(9, data);
    }
}

/// A FileMetaData's version and schema list, its root element for `columns` columns written: the columns'
/// elements follow.
pub fn footer_schema(t: &mut Writer, columns: usize) {
    t.i32(1, 1);
    t.list(2, STRUCT, columns + 1);
    t.begin_elem();
    t.binary(4, b"schema");
    t.i32(5, columns as i32);
    t.end();
}
