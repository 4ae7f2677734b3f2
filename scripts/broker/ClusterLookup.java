// Asks a running test cluster who does what, for scripts/test-broker (cluster mode). Run with
// the broker's jar cache on the class path; it needs nothing beyond kafka-clients.
//
//   ClusterLookup leader BOOTSTRAP TOPIC PARTITION   the partition leader's node id
//   ClusterLookup group-coordinator BOOTSTRAP GROUP  the node that coordinates the group
//   ClusterLookup txn-coordinator BOOTSTRAP TXID     the node that coordinates the transactional id
//   ClusterLookup ready BOOTSTRAP NODES              waits until NODES brokers are registered and
//                                                    both coordinators answer, which makes the
//                                                    broker create __consumer_offsets and
//                                                    __transaction_state; then prints their
//                                                    replication factor and min.insync.replicas
//
// The coordinators are asked with a FindCoordinator request, the way clients find them:
// Kafka's Admin API names a coordinator only for a group or transaction that already exists,
// while FindCoordinator answers for any key (and creates the internal topic on first use).
// Every lookup is retried until CAUSAL_LOOKUP_TIMEOUT seconds (default 30) have passed, since
// a cluster that has just lost a node answers "not available" for a few seconds. Output: one
// line on stdout; exit 1 with the last error on stderr when the deadline passes.
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.RequestHeader;

public class ClusterLookup {
  static final long DEADLINE_NS =
      System.nanoTime()
          + TimeUnit.SECONDS.toNanos(
              Long.parseLong(System.getenv().getOrDefault("CAUSAL_LOOKUP_TIMEOUT", "30")));
  static String lastError = "no attempt";

  interface Attempt<T> {
    T run() throws Exception; // null: not yet, try again
  }

  static <T> T retry(Attempt<T> attempt) throws InterruptedException {
    while (true) {
      try {
        T result = attempt.run();
        if (result != null) return result;
      } catch (Exception e) {
        lastError = e.toString();
      }
      if (System.nanoTime() > DEADLINE_NS) {
        System.err.println("cluster-lookup: gave up: " + lastError);
        System.exit(1);
      }
      Thread.sleep(250);
    }
  }

  static Admin admin(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "8000");
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "causal-cluster-lookup");
    return Admin.create(p);
  }

  // One FindCoordinator request (version 4: a list of keys) to each bootstrap address in
  // turn, over a plain socket; the coordinator's node id, or null while it is not available.
  static Integer findCoordinator(String bootstrap, FindCoordinatorRequest.CoordinatorType type, String key)
      throws Exception {
    for (String address : bootstrap.split(",")) {
      String host = address.substring(0, address.lastIndexOf(':'));
      int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(host, port), 3000);
        s.setSoTimeout(5000);
        short version = 4;
        FindCoordinatorRequestData data =
            new FindCoordinatorRequestData().setKeyType(type.id()).setCoordinatorKeys(List.of(key));
        FindCoordinatorRequest request = new FindCoordinatorRequest.Builder(data).build(version);
        RequestHeader header = new RequestHeader(ApiKeys.FIND_COORDINATOR, version, "causal-cluster-lookup", 1);
        ByteBuffer out = request.serializeWithHeader(header);
        DataOutputStream o = new DataOutputStream(s.getOutputStream());
        o.writeInt(out.remaining());
        o.write(out.array(), out.arrayOffset() + out.position(), out.remaining());
        o.flush();
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        FindCoordinatorResponse response =
            (FindCoordinatorResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(body), header);
        for (FindCoordinatorResponseData.Coordinator c : response.coordinators()) {
          Errors error = Errors.forCode(c.errorCode());
          if (error == Errors.NONE) return c.nodeId();
          lastError = address + " answered " + error.name();
        }
      } catch (Exception e) {
        lastError = address + ": " + e;
      }
    }
    return null;
  }

  static Integer leader(Admin admin, String topic, int partition) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    for (TopicPartitionInfo p : d.partitions()) {
      if (p.partition() != partition) continue;
      Node leader = p.leader();
      if (leader == null || leader.isEmpty()) {
        lastError = topic + "-" + partition + " has no leader";
        return null;
      }
      return leader.id();
    }
    throw new IllegalArgumentException(topic + " has no partition " + partition);
  }

  // The internal topics' replication: null until every partition has `rf` replicas, all in sync.
  static String internalTopics(Admin admin, int rf) throws Exception {
    List<String> names = List.of("__consumer_offsets", "__transaction_state");
    Map<String, TopicDescription> ds = admin.describeTopics(names).allTopicNames().get();
    List<ConfigResource> resources = new ArrayList<>();
    for (String n : names) resources.add(new ConfigResource(ConfigResource.Type.TOPIC, n));
    Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get();
    StringBuilder sb = new StringBuilder();
    for (String n : names) {
      TopicDescription d = ds.get(n);
      for (TopicPartitionInfo p : d.partitions()) {
        if (p.replicas().size() != rf || p.isr().size() != rf) {
          lastError = n + "-" + p.partition() + " has replicas " + p.replicas() + ", isr " + p.isr();
          return null;
        }
      }
      String minIsr = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, n)).get("min.insync.replicas").value();
      sb.append(String.format("%s partitions=%d rf=%d min.insync.replicas=%s; ",
          n, d.partitions().size(), d.partitions().get(0).replicas().size(), minIsr));
    }
    return sb.toString().trim();
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: ClusterLookup leader|group-coordinator|txn-coordinator|ready BOOTSTRAP ARGS...");
      System.exit(2);
    }
    String bootstrap = args[1];
    switch (args[0]) {
      case "leader" -> {
        try (Admin admin = admin(bootstrap)) {
          System.out.println(retry(() -> leader(admin, args[2], Integer.parseInt(args[3]))));
        }
      }
      case "group-coordinator" -> System.out.println(
          retry(() -> findCoordinator(bootstrap, FindCoordinatorRequest.CoordinatorType.GROUP, args[2])));
      case "txn-coordinator" -> System.out.println(
          retry(() -> findCoordinator(bootstrap, FindCoordinatorRequest.CoordinatorType.TRANSACTION, args[2])));
      case "ready" -> {
        int nodes = Integer.parseInt(args[2]);
        int rf = Math.min(nodes, 3);
        try (Admin admin = admin(bootstrap)) {
          retry(() -> {
            Collection<Node> n = admin.describeCluster().nodes().get();
            if (n.size() == nodes) return n;
            lastError = n.size() + " of " + nodes + " brokers registered";
            return null;
          });
          retry(() -> findCoordinator(bootstrap, FindCoordinatorRequest.CoordinatorType.GROUP, "causal-ready"));
          retry(() -> findCoordinator(bootstrap, FindCoordinatorRequest.CoordinatorType.TRANSACTION, "causal-ready"));
          System.out.println(retry(() -> internalTopics(admin, rf)));
        }
      }
      default -> {
        System.err.println("cluster-lookup: unknown command " + args[0]);
        System.exit(2);
      }
    }
  }
}
