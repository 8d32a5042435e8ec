//! Thrift compact protocol, read side: a Parquet footer or page header parsed into a small tree of values
//! (a footer of 100 row groups x 21 columns parses in well under a millisecond, so no typed structs).

use crate::thrift::{BINARY, BOOL_FALSE, BOOL_TRUE, BYTE, I32, I64, LIST, STRUCT};

const I16: u8 = 4;
const DOUBLE: u8 = 7;
const SET: u8 = 10;
const MAP: u8 = 11;

#[derive(Debug, Clone)]
pub enum Value {
    Int(i64),
    Bin(Vec<u8>),
    List(Vec<Value>),
    Struct(Vec<(i16, Value)>),
    Other,
}

impl Value {
    pub fn field(&self, id: i16) -> Option<&Value> {
        match self {
            Value::Struct(f) => f.iter().find(|(k, _)| *k == id).map(|(_, v)| v),
            _ => None,
        }
    }
    pub fn int(&self, id: i16) -> Option<i64> {
        match self.field(id)? {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
    pub fn bin(&self, id: i16) -> Option<&[u8]> {
        match self.field(id)? {
            Value::Bin(v) => Some(v),
            _ => None,
        }
    }
    pub fn list(&self, id: i16) -> &[Value] {
        match self.field(id) {
            Some(Value::List(v)) => v,
            _ => &[],
        }
    }
}

pub struct Reader<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
    depth: u32,
}

type R<T> = Result<T, String>;

/// An unsigned LEB128 varint at d[*p..] (thrift's compact protocol and Parquet's encodings), *p moved past it.
pub fn varint(d: &[u8], p: &mut usize) -> R<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *d.get(*p).ok_or("varint past the end")?;
        *p += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("varint too long".into())
}

/// A zigzag-encoded signed varint.
pub fn zigzag(d: &[u8], p: &mut usize) -> R<i64> {
    let v = varint(d, p)?;
    Ok((v >> 1) as i64 ^ -((v & 1) as i64))
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0, depth: 0 }
    }
    fn byte(&mut self) -> R<u8> {
        let b = *self.buf.get(self.pos).ok_or("thrift: truncated")?;
        self.pos += 1;
        Ok(b)
    }
    fn varint(&mut self) -> R<u64> {
        varint(self.buf, &mut self.pos).map_err(|e| format!("thrift: {e}"))
    }
    fn zigzag(&mut self) -> R<i64> {
        zigzag(self.buf, &mut self.pos).map_err(|e| format!("thrift: {e}"))
    }
    fn value(&mut self, typ: u8) -> R<Value> {
        Ok(match typ {
            BOOL_TRUE => Value::Int(1),
            BOOL_FALSE => Value::Int(0),
            BYTE => Value::Int(self.byte()? as i8 as i64),
            I16 | I32 | I64 => Value::Int(self.zigzag()?),
            DOUBLE => {
                self.pos += 8;
                Value::Other
            }
            BINARY => {
                let n = self.varint()? as usize;
                let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len()).ok_or("thrift: truncated")?;
                let v = self.buf[self.pos..end].to_vec();
                self.pos = end;
                Value::Bin(v)
            }
            LIST | SET => {
                let h = self.byte()?;
                let n = if h >> 4 == 15 { self.varint()? as usize } else { (h >> 4) as usize };
                if n > self.buf.len() {
                    return Err("thrift: list too long".into());
                }
                let et = h & 15;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    // booleans in a list are one byte each
                    v.push(if et == BOOL_TRUE || et == BOOL_FALSE { Value::Int((self.byte()? == 1) as i64) } else { self.value(et)? });
                }
                Value::List(v)
            }
            MAP => {
                let n = self.varint()? as usize;
                if n > 0 {
                    let kv = self.byte()?;
                    for _ in 0..n {
                        self.value(kv >> 4)?;
                        self.value(kv & 15)?;
                    }
                }
                Value::Other
            }
            STRUCT => self.structure()?,
            t => return Err(format!("thrift: unknown type {t}")),
        })
    }
    /// One struct, from its first field header to its stop byte.
    pub fn structure(&mut self) -> R<Value> {
        self.depth += 1;
        if self.depth > 32 {
            return Err("thrift: nested too deep".into());
        }
        let mut fields = vec![];
        let mut last = 0i16;
        loop {
            let h = self.byte()?;
            if h == 0 {
                break;
            }
            let delta = (h >> 4) as i16;
            let id = if delta == 0 { self.zigzag()? as i16 } else { last + delta };
            last = id;
            fields.push((id, self.value(h & 15)?));
        }
        self.depth -= 1;
        Ok(Value::Struct(fields))
    }
}
