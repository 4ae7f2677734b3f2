// The Kafka Streams side of bench/relay_vs_streams.sh: one Streams instance (one stream
// thread) reads INPUT, upper-cases every value (ASCII a-z, as the relay's and the plain
// loop's std::toupper in the C locale), and writes it to OUTPUT with the same key and no
// headers, under processing.guarantee=exactly_once_v2 with commit.interval.ms=COMMIT_MS.
//
//   StreamsRelay BROKERS INPUT OUTPUT APPLICATION_ID RECORDS COMMIT_MS [KEY=VALUE]...
//
// KEY=VALUE are Streams properties set after the bench's own (for consumer or producer
// settings, Streams' consumer. and producer. prefixes). Once RECORDS records have gone
// through the transform it waits until the group's committed offsets reach, on every input
// partition, one past the last record transformed (an Admin client asks every 10 ms), and
// prints "streams RECORDS SECONDS": the time from the first record transformed to the commit
// seen, as the C++ side times from the first record received to its last commit; on standard
// error, the stream thread's commits (commit-total: one transaction each). Exit 1 on
// a failure (the stream thread died, or no commit within 120 s).
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

public final class StreamsRelay {
  private static void die(String what) {
    System.err.println("streams-relay: " + what);
    System.exit(1);
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 6) {
      die("usage: StreamsRelay BROKERS INPUT OUTPUT APPLICATION_ID RECORDS COMMIT_MS [KEY=VALUE]...");
    }
    final String brokers = args[0], input = args[1], output = args[2], appId = args[3];
    final long records = Long.parseLong(args[4]);
    final long commitMs = Long.parseLong(args[5]);

    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitMs));
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.ISOLATION_LEVEL_CONFIG), "read_committed");
    p.put(StreamsConfig.producerPrefix(ProducerConfig.ACKS_CONFIG), "all");
    for (int i = 6; i < args.length; ++i) {
      int eq = args[i].indexOf('=');
      if (eq <= 0) die("a property is KEY=VALUE: " + args[i]);
      p.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }

    final AtomicLong seen = new AtomicLong();
    final AtomicLong firstNanos = new AtomicLong();
    final CountDownLatch allSeen = new CountDownLatch(1);
    final Map<TopicPartition, Long> lastOffset = new ConcurrentHashMap<>();

    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .processValues(() -> new FixedKeyProcessor<byte[], byte[], byte[]>() {
          private FixedKeyProcessorContext<byte[], byte[]> context;

          @Override
          public void init(FixedKeyProcessorContext<byte[], byte[]> context) {
            this.context = context;
          }

          @Override
          public void process(FixedKeyRecord<byte[], byte[]> record) {
            if (seen.get() == 0) firstNanos.compareAndSet(0, System.nanoTime());
            byte[] in = record.value();
            byte[] out = in == null ? new byte[0] : new byte[in.length];
            for (int i = 0; in != null && i < in.length; ++i) {
              byte b = in[i];
              out[i] = (b >= 'a' && b <= 'z') ? (byte) (b - ('a' - 'A')) : b;
            }
            context.recordMetadata().ifPresent(m ->
                lastOffset.merge(new TopicPartition(m.topic(), m.partition()), m.offset(), Math::max));
            context.forward(record.withValue(out).withHeaders(new RecordHeaders()));
            if (seen.incrementAndGet() == records) allSeen.countDown();
          }
        })
        .to(output, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));

    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    final CountDownLatch failed = new CountDownLatch(1);
    streams.setUncaughtExceptionHandler(e -> {
      System.err.println("streams-relay: stream thread failed: " + e);
      failed.countDown();
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    streams.start();

    Properties ap = new Properties();
    ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
    double secs;
    try (Admin admin = Admin.create(ap)) {
      final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
      while (!allSeen.await(100, TimeUnit.MILLISECONDS)) {
        if (failed.getCount() == 0) die("the stream thread died after " + seen.get() + " records");
        if (System.nanoTime() > deadline) die("only " + seen.get() + " of " + records + " records within 600 s");
      }
      final Map<TopicPartition, Long> want = new HashMap<>(lastOffset);
      final long commitDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      long done;
      for (;;) {
        Map<TopicPartition, OffsetAndMetadata> committed =
            admin.listConsumerGroupOffsets(appId).partitionsToOffsetAndMetadata().get();
        done = System.nanoTime();
        boolean all = true;
        for (Map.Entry<TopicPartition, Long> e : want.entrySet()) {
          OffsetAndMetadata c = committed.get(e.getKey());
          if (c == null || c.offset() < e.getValue() + 1) all = false;
        }
        if (all) break;
        if (failed.getCount() == 0) die("the stream thread died before the last commit");
        if (done > commitDeadline) die("the last records' offsets were not committed within 120 s");
        Thread.sleep(10);
      }
      secs = (done - firstNanos.get()) / 1e9;
    }
    // The stream thread's commits (each one transaction under exactly_once_v2), said on
    // standard error as relay_vs_eos says its transactions.
    double commits = 0;
    for (Map.Entry<MetricName, ? extends Metric> m : streams.metrics().entrySet()) {
      if (m.getKey().name().equals("commit-total") && m.getKey().group().equals("stream-thread-metrics")) {
        commits += ((Number) m.getValue().metricValue()).doubleValue();
      }
    }
    streams.close(Duration.ofSeconds(30));
    System.err.printf("streams-relay: streams: %d transactions committed%n", (long) commits);
    System.out.printf("streams %d %.3f%n", records, secs);
  }
}
