package org.blkscope.ycsb;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;

import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * A YCSB binding for Apache Cassandra on the DataStax Java driver 4.x, after YCSB's cassandra-cql binding (driver
 * 3.x, not on Maven Central): one CqlSession per JVM shared by all client threads, the record in table
 * KEYSPACE.TABLE (y_id text PRIMARY KEY, field0..fieldN text), prepared statements cached per operation and field
 * set, every statement at the consistency level asked for. Properties (YCSB's cassandra-cql names where it has
 * them): hosts (default 127.0.0.1; the first is the contact point), port (9042), cassandra.keyspace (ycsb),
 * cassandra.localdc (datacenter1: SimpleSnitch's), cassandra.readconsistencylevel and
 * cassandra.writeconsistencylevel (ONE), cassandra.requesttimeoutmillis (12000, the 3.x driver's read timeout:
 * a CPU-bound node on two cores answers slowly, and a timeout counts as a failed operation, not a slow one),
 * cassandra.createschema (true: create the keyspace, replication factor 1, and the table with YCSB's
 * fieldcount and fieldnameprefix when absent).
 */
public class CassandraClient extends DB {
  private static final String KEY = "y_id";
  private static CqlSession session;
  private static int refs;
  private static String table;
  private static ConsistencyLevel readCl;
  private static ConsistencyLevel writeCl;
  private static final ConcurrentMap<String, PreparedStatement> PREPARED = new ConcurrentHashMap<>();

  @Override
  public void init() throws DBException {
    synchronized (CassandraClient.class) {
      if (session == null) {
        open(getProperties());
      }
      refs++;
    }
  }

  private static void open(Properties p) throws DBException {
    String host = p.getProperty("hosts", "127.0.0.1").split(",")[0].trim();
    int port = Integer.parseInt(p.getProperty("port", "9042"));
    String keyspace = p.getProperty("cassandra.keyspace", "ycsb");
    table = keyspace + "." + p.getProperty("table", "usertable");
    readCl = DefaultConsistencyLevel.valueOf(p.getProperty("cassandra.readconsistencylevel", "ONE"));
    writeCl = DefaultConsistencyLevel.valueOf(p.getProperty("cassandra.writeconsistencylevel", "ONE"));
    long timeout = Long.parseLong(p.getProperty("cassandra.requesttimeoutmillis", "12000"));
    DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofMillis(timeout))
        .build();
    try {
      session = CqlSession.builder()
          .addContactPoint(new InetSocketAddress(host, port))
          .withLocalDatacenter(p.getProperty("cassandra.localdc", "datacenter1"))
          .withConfigLoader(config)
          .build();
      if (Boolean.parseBoolean(p.getProperty("cassandra.createschema", "true"))) {
        createSchema(keyspace, p);
      }
    } catch (DriverException e) {
      if (session != null) {
        session.close();
        session = null;
      }
      throw new DBException(e);
    }
    System.err.println("blkscope CassandraClient: driver "
        + CqlSession.OSS_DRIVER_COORDINATES.getVersion() + " " + host + ":" + port + " table=" + table
        + " read=" + readCl + " write=" + writeCl + " timeout_ms=" + timeout);
  }

  private static void createSchema(String keyspace, Properties p) {
    int fields = Integer.parseInt(p.getProperty("fieldcount", "10"));
    String prefix = p.getProperty("fieldnameprefix", "field");
    StringBuilder cols = new StringBuilder(KEY + " text PRIMARY KEY");
    for (int i = 0; i < fields; i++) {
      cols.append(", ").append(prefix).append(i).append(" text");
    }
    session.execute("CREATE KEYSPACE IF NOT EXISTS " + keyspace
        + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    session.execute("CREATE TABLE IF NOT EXISTS " + table + " (" + cols + ")");
  }

  @Override
  public void cleanup() throws DBException {
    synchronized (CassandraClient.class) {
      if (--refs == 0) {
        try {
          session.close();
        } finally {
          session = null;
          PREPARED.clear();
        }
      }
    }
  }

  /** One prepared statement per CQL text: the text names the operation and its fields. */
  private static BoundStatement bind(String cql, ConsistencyLevel cl, Object... values) {
    PreparedStatement ps = PREPARED.computeIfAbsent(cql, session::prepare);
    return ps.bind(values).setConsistencyLevel(cl);
  }

  private static String columns(Set<String> fields) {
    return fields == null ? "*" : String.join(", ", new TreeSet<>(fields));
  }

  private static void putRow(Row row, Map<String, ByteIterator> out) {
    ColumnDefinitions defs = row.getColumnDefinitions();
    for (int i = 0; i < defs.size(); i++) {
      String name = defs.get(i).getName().asInternal();
      String value = row.getString(i);
      if (!KEY.equals(name) && value != null) {
        out.put(name, new StringByteIterator(value));
      }
    }
  }

  @Override
  public Status read(String tbl, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      String cql = "SELECT " + columns(fields) + " FROM " + table + " WHERE " + KEY + " = ?";
      Row row = session.execute(bind(cql, readCl, key)).one();
      if (row == null) {
        return Status.NOT_FOUND;
      }
      putRow(row, result);
      return Status.OK;
    } catch (DriverException e) {
      System.err.println("blkscope CassandraClient read " + key + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String tbl, String startkey, int count, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    try {
      String cql = "SELECT " + columns(fields) + " FROM " + table + " WHERE token(" + KEY + ") >= token(?) LIMIT ?";
      ResultSet rs = session.execute(bind(cql, readCl, startkey, count));
      for (Row row : rs) {
        HashMap<String, ByteIterator> r = new HashMap<>();
        putRow(row, r);
        result.add(r);
      }
      return Status.OK;
    } catch (DriverException e) {
      System.err.println("blkscope CassandraClient scan " + startkey + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String tbl, String key, Map<String, ByteIterator> values) {
    // A CQL UPDATE writes the given fields only (no read before the write, unlike RocksDB's binding).
    List<String> names = new ArrayList<>(new TreeSet<>(values.keySet()));
    List<Object> args = new ArrayList<>();
    StringBuilder set = new StringBuilder();
    for (String n : names) {
      set.append(set.length() == 0 ? "" : ", ").append(n).append(" = ?");
      args.add(values.get(n).toString());
    }
    args.add(key);
    return write("update", key, "UPDATE " + table + " SET " + set + " WHERE " + KEY + " = ?", args);
  }

  @Override
  public Status insert(String tbl, String key, Map<String, ByteIterator> values) {
    List<String> names = new ArrayList<>(new TreeSet<>(values.keySet()));
    List<Object> args = new ArrayList<>(List.of(key));
    StringBuilder marks = new StringBuilder("?");
    for (String n : names) {
      marks.append(", ?");
      args.add(values.get(n).toString());
    }
    String cql = "INSERT INTO " + table + " (" + KEY + ", " + String.join(", ", names) + ") VALUES (" + marks + ")";
    return write("insert", key, cql, args);
  }

  @Override
  public Status delete(String tbl, String key) {
    return write("delete", key, "DELETE FROM " + table + " WHERE " + KEY + " = ?", List.of(key));
  }

  private static Status write(String op, String key, String cql, List<Object> args) {
    try {
      session.execute(bind(cql, writeCl, args.toArray()));
      return Status.OK;
    } catch (DriverException e) {
      System.err.println("blkscope CassandraClient " + op + " " + key + ": " + e);
      return Status.ERROR;
    }
  }
}
