package org.blkscope.ycsb;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteOptions;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB binding for RocksDB, after the upstream site.ycsb.db.rocksdb binding (which Maven Central does not carry):
 * one RocksDB instance per JVM shared by all client threads, the record's fields serialised into one value, the
 * table name as a key prefix (YCSB uses one table). Properties:
 * rocksdb.dir (required), rocksdb.directreads (default true: O_DIRECT reads, so reads reach the block device as in
 * a database larger than memory), rocksdb.blockcachemb (default 8), rocksdb.writebuffermb (default 64),
 * rocksdb.sync (default false: WAL written, not fsynced, per update; RocksDB's default), rocksdb.flushonclose
 * (default false: true writes the memtable to an SST file before closing, so the next open replays no WAL; for
 * the load phase, which otherwise leaves the next phase a WAL replay and its flush).
 */
public class RocksDBClient extends DB {
  private static RocksDB db;
  private static Options options;
  private static LRUCache cache;
  private static int refs;
  private static WriteOptions writeOptions;
  private static boolean flushOnClose;

  @Override
  public void init() throws DBException {
    synchronized (RocksDBClient.class) {
      if (db == null) {
        Properties p = getProperties();
        String dir = p.getProperty("rocksdb.dir");
        if (dir == null) {
          throw new DBException("rocksdb.dir is required");
        }
        RocksDB.loadLibrary();
        cache = new LRUCache(Long.parseLong(p.getProperty("rocksdb.blockcachemb", "8")) << 20);
        options = new Options()
            .setCreateIfMissing(true)
            .setUseDirectReads(Boolean.parseBoolean(p.getProperty("rocksdb.directreads", "true")))
            .setWriteBufferSize(Long.parseLong(p.getProperty("rocksdb.writebuffermb", "64")) << 20)
            .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache));
        flushOnClose = Boolean.parseBoolean(p.getProperty("rocksdb.flushonclose", "false"));
        writeOptions = new WriteOptions().setSync(Boolean.parseBoolean(p.getProperty("rocksdb.sync", "false")));
        try {
          db = RocksDB.open(options, dir);
        } catch (RocksDBException e) {
          throw new DBException(e);
        }
        System.err.println("blkscope RocksDBClient: rocksdb " + RocksDB.rocksdbVersion() + " dir=" + dir
            + " directreads=" + options.useDirectReads() + " sync=" + writeOptions.sync()
            + " flushonclose=" + flushOnClose);
      }
      refs++;
    }
  }

  @Override
  public void cleanup() throws DBException {
    synchronized (RocksDBClient.class) {
      if (--refs == 0) {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
          db.syncWal();
          if (flushOnClose) {
            db.flush(flush);
          }
        } catch (RocksDBException e) {
          throw new DBException(e);
        } finally {
          db.close();
          writeOptions.close();
          options.close();
          cache.close();
          db = null;
        }
      }
    }
  }

  private static byte[] key(String table, String key) {
    return (table + ":" + key).getBytes(StandardCharsets.UTF_8);
  }

  static byte[] serialize(Map<String, ByteIterator> values) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(buf);
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
      byte[] value = e.getValue().toArray();
      out.writeInt(name.length);
      out.write(name);
      out.writeInt(value.length);
      out.write(value);
    }
    return buf.toByteArray();
  }

  static void deserialize(byte[] data, Set<String> fields, Map<String, ByteIterator> result) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
    while (in.available() > 0) {
      byte[] name = new byte[in.readInt()];
      in.readFully(name);
      byte[] value = new byte[in.readInt()];
      in.readFully(value);
      String n = new String(name, StandardCharsets.UTF_8);
      if (fields == null || fields.contains(n)) {
        result.put(n, new ByteArrayByteIterator(value));
      }
    }
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      byte[] v = db.get(key(table, key));
      if (v == null) {
        return Status.NOT_FOUND;
      }
      deserialize(v, fields, result);
      return Status.OK;
    } catch (RocksDBException | IOException e) {
      e.printStackTrace();
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String table, String startkey, int count, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    String prefix = table + ":";
    try (RocksIterator it = db.newIterator()) {
      for (it.seek(key(table, startkey)); it.isValid() && result.size() < count; it.next()) {
        if (!new String(it.key(), StandardCharsets.UTF_8).startsWith(prefix)) {
          break;
        }
        HashMap<String, ByteIterator> row = new HashMap<>();
        deserialize(it.value(), fields, row);
        result.add(row);
      }
      return Status.OK;
    } catch (IOException e) {
      e.printStackTrace();
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    // Read-modify-write of the whole record, as the upstream binding does: YCSB updates one field of ten.
    try {
      byte[] k = key(table, key);
      Map<String, ByteIterator> row = new HashMap<>();
      byte[] old = db.get(k);
      if (old == null) {
        return Status.NOT_FOUND;
      }
      deserialize(old, null, row);
      row.putAll(values);
      db.put(writeOptions, k, serialize(row));
      return Status.OK;
    } catch (RocksDBException | IOException e) {
      e.printStackTrace();
      return Status.ERROR;
    }
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    try {
      db.put(writeOptions, key(table, key), serialize(values));
      return Status.OK;
    } catch (RocksDBException | IOException e) {
      e.printStackTrace();
      return Status.ERROR;
    }
  }

  @Override
  public Status delete(String table, String key) {
    try {
      db.delete(writeOptions, key(table, key));
      return Status.OK;
    } catch (RocksDBException e) {
      e.printStackTrace();
      return Status.ERROR;
    }
  }
}
