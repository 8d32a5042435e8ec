package org.blkscope.cassandra;

import com.datastax.driver.core.BoundStatement;
import com.datastax.driver.core.Cluster;
import com.datastax.driver.core.ConsistencyLevel;
import com.datastax.driver.core.PreparedStatement;
import com.datastax.driver.core.ResultSetFuture;
import com.datastax.driver.core.Session;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Random;

/**
 * A tiny CQL load for the node's lifecycle test (not cassandra-stress, and never presented as its output):
 * inserts rows of one blob for a number of seconds with a bounded number of requests in flight, then prints one
 * line "cql-load: rows=N errors=E seconds=S rows_per_s=R". Usage: CqlLoad HOST PORT SECONDS [IN_FLIGHT] [SEED].
 */
public final class CqlLoad {
    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        double seconds = Double.parseDouble(args[2]);
        int inFlight = args.length > 3 ? Integer.parseInt(args[3]) : 32;
        Random random = new Random(args.length > 4 ? Long.parseLong(args[4]) : 1);
        try (Cluster cluster = Cluster.builder().addContactPoint(host).withPort(port)
                .withoutJMXReporting().build();
             Session session = cluster.connect()) {
            session.execute("CREATE KEYSPACE IF NOT EXISTS blkscope WITH replication = "
                    + "{'class': 'SimpleStrategy', 'replication_factor': 1}");
            session.execute("CREATE TABLE IF NOT EXISTS blkscope.load (k bigint PRIMARY KEY, v blob)");
            PreparedStatement insert = session.prepare("INSERT INTO blkscope.load (k, v) VALUES (?, ?)");
            insert.setConsistencyLevel(ConsistencyLevel.ONE);
            byte[] value = new byte[1024];
            ArrayDeque<ResultSetFuture> pending = new ArrayDeque<>();
            long rows = 0, errors = 0;
            long start = System.nanoTime(), end = start + (long) (seconds * 1e9);
            while (System.nanoTime() < end) {
                random.nextBytes(value);
                BoundStatement b = insert.bind(random.nextLong(), ByteBuffer.wrap(value.clone()));
                pending.add(session.executeAsync(b));
                if (pending.size() >= inFlight) {
                    errors += settle(pending.poll());
                    rows++;
                }
            }
            while (!pending.isEmpty()) {
                errors += settle(pending.poll());
                rows++;
            }
            double s = (System.nanoTime() - start) / 1e9;
            System.out.printf("cql-load: rows=%d errors=%d seconds=%.3f rows_per_s=%.1f%n", rows, errors, s, rows / s);
            System.exit(errors == 0 ? 0 : 1);
        }
    }

    private static int settle(ResultSetFuture f) {
        try {
            f.getUninterruptibly();
            return 0;
        } catch (RuntimeException e) {
            System.err.println("cql-load: " + e);
            return 1;
        }
    }
}
