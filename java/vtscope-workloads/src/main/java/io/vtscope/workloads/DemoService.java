// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small traced HTTP service for {@code make demo}: each request runs on its own virtual thread
 * under a SERVER span, does file I/O, then socket I/O to an in-process echo "database" under a
 * nested "db-call" span, so the consumer can attribute those syscalls to the request's trace. A
 * built-in load generator drives it and prints each request's trace id (returned by the service in
 * the {@code X-Trace-Id} header) for comparison with the consumer's output.
 *
 * <p>With {@code --batches K} the same JVM serves K loads of {@code --requests} requests after its
 * warm-up, for {@code vtscope-bench}'s alternating part (a consumer attached for some batches and
 * detached for the others): before batch B it waits for {@code GO.B} ({@code --go-file GO}), after
 * it prints {@code # demo batch=B requests=N nanos=T cpu_ns=C requests_per_s=R cpu_us_per_request=U
 * failed=F} (F: requests without a 200 response) and no per-request lines.
 */
public final class DemoService {
    private static final String NAME = "DemoService";
    private static final String USAGE = "[--requests N] [--concurrency C] [--warm-up-requests N] [--ready-file PATH]"
            + " [--go-file PATH] [--batches K]";

    private final Tracer tracer;
    private final Path dataDir;
    private final InetSocketAddress echo;

    private DemoService(Tracer tracer, Path dataDir, InetSocketAddress echo) {
        this.tracer = tracer;
        this.dataDir = dataDir;
        this.echo = echo;
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(NAME, USAGE, args, Map.of("requests", "300", "concurrency", "8",
                "warm-up-requests", "20", "ready-file", "", "go-file", "", "batches", "0"), Set.of());
        int requests = o.getInt("requests", 1, 100_000);
        int concurrency = o.getInt("concurrency", 1, 1024);
        // Before the ready signal; more of them leave less JIT compilation inside the measured load.
        int warmUp = o.getInt("warm-up-requests", 1, 100_000);
        // 0: one load, its per-request lines and one result line (the default).
        int batches = o.getInt("batches", 0, 10_000);
        if (batches > 0 && o.get("go-file") == null) {
            System.err.println(NAME + ": --batches needs --go-file");
            System.exit(2);
        }
        Workloads.checkVtScope(NAME);
        // Everything is bounded: a stuck run must not hang the caller's test. Batches add 60 s each
        // (a consumer started and stopped around each), at most an hour in all.
        long timeout = Math.min(3600, 120 + 60L * batches);
        Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(timeout));
                System.err.println(NAME + ": overall timeout of " + timeout + " s exceeded");
                Runtime.getRuntime().halt(3);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        InetAddress loopback = InetAddress.getLoopbackAddress();
        Path dataDir = Files.createTempDirectory("vtscope-demo");
        try (OpenTelemetrySdk sdk = Workloads.sdk();
                ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
                ServerSocket echoServer = new ServerSocket(0, 128, loopback)) {
            workers.submit(() -> acceptEcho(echoServer, workers));
            DemoService service = new DemoService(sdk.getTracer("io.vtscope.workloads.DemoService"), dataDir,
                    (InetSocketAddress) echoServer.getLocalSocketAddress());
            HttpServer server = HttpServer.create(new InetSocketAddress(loopback, 0), 128);
            server.setExecutor(workers);
            server.createContext("/order/", service::handle);
            server.start();
            URI base = URI.create("http://" + loopback.getHostAddress() + ":" + server.getAddress().getPort());
            try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build()) {
                load(client, base, warmUp, concurrency);
                Workloads.signalReady(o.get("ready-file"));
                if (batches > 0) {
                    serveBatches(client, base, requests, concurrency, batches, o.get("go-file"));
                } else {
                    serveOnce(client, base, requests, concurrency, o.get("go-file"));
                }
            } finally {
                server.stop(0);
            }
        } finally {
            Files.deleteIfExists(dataDir);
        }
        System.err.println(NAME + ": served " + (batches > 0 ? batches + " x " : "") + requests + " requests");
        System.exit(0); // the HttpClient's and the server's helper threads must not keep the JVM up
    }

    /** One load after the go file: its per-request lines, then its result line. */
    private static void serveOnce(HttpClient client, URI base, int requests, int concurrency, String goFile)
            throws Exception {
        Workloads.awaitGo(NAME, goFile);
        Workloads.ProcessCpu processCpu = new Workloads.ProcessCpu(NAME);
        long cpuStarted = processCpu.nanos();
        long started = System.nanoTime();
        String[] lines = load(client, base, requests, concurrency);
        long elapsed = System.nanoTime() - started;
        long cpu = processCpu.since(cpuStarted);
        for (String line : lines) {
            System.out.println(line);
        }
        // The load's wall time, from which vtscope-bench computes requests per second (its
        // profile part, and --block with and without a tracer), and the process's CPU time
        // over it (every thread: server, load generator, JIT, GC), the CPU per request
        // that a profiler attached adds to.
        System.out.println("# demo requests=" + requests + " nanos=" + elapsed + " cpu_ns=" + cpu);
    }

    /** The batches: each waits for its go file, serves one load and prints its result line. */
    private static void serveBatches(HttpClient client, URI base, int requests, int concurrency, int batches,
            String goFile) throws Exception {
        Workloads.ProcessCpu processCpu = new Workloads.ProcessCpu(NAME);
        for (int b = 1; b <= batches; b++) {
            Workloads.awaitGo(NAME, goFile + "." + b);
            long cpuStarted = processCpu.nanos();
            long started = System.nanoTime();
            String[] lines = load(client, base, requests, concurrency);
            long elapsed = System.nanoTime() - started;
            long cpu = processCpu.since(cpuStarted);
            long failed = Arrays.stream(lines).filter(line -> line == null || !line.endsWith(" status=200")).count();
            // One write for the whole line: printf writes it in pieces, which a reader can catch half-way.
            System.out.println(String.format(Locale.ROOT, "# demo batch=%d requests=%d nanos=%d cpu_ns=%d"
                    + " requests_per_s=%.1f cpu_us_per_request=%.2f failed=%d", b, requests, elapsed, cpu,
                    requests / (elapsed / 1e9), cpu / 1e3 / requests, failed));
            System.out.flush();
        }
    }

    /** One request: SERVER span, file write/read/delete, then a "db-call" span over a loopback socket. */
    @SuppressWarnings("try") // the scope is held only for its effect on the current context
    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        Span span = tracer.spanBuilder("GET /order/{id}").setSpanKind(SpanKind.SERVER)
                .setAttribute("url.path", path).startSpan();
        try (Scope scope = span.makeCurrent(); exchange) {
            String id = path.substring("/order/".length());
            byte[] data = new byte[4096 + id.length()];
            Arrays.fill(data, (byte) 'o');
            Path file = Files.createTempFile(dataDir, "order-", ".bin");
            Files.write(file, data);
            byte[] back = Files.readAllBytes(file);
            Files.delete(file);
            String db = dbCall("SELECT " + id + " " + back.length);
            byte[] body = ("order " + id + " " + db + "\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("X-Trace-Id", span.getSpanContext().getTraceId());
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        } finally {
            span.end();
        }
    }

    @SuppressWarnings("try")
    private String dbCall(String query) throws IOException {
        Span span = tracer.spanBuilder("db-call").setSpanKind(SpanKind.CLIENT).startSpan();
        try (Scope scope = span.makeCurrent(); Socket s = new Socket(echo.getAddress(), echo.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(query.getBytes(StandardCharsets.UTF_8));
            s.shutdownOutput();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            span.end();
        }
    }

    /** The echo "database": each connection is copied back to the caller until EOF. */
    private static Void acceptEcho(ServerSocket server, ExecutorService workers) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                workers.submit(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        s.setSoTimeout(10_000);
                        in.transferTo(out);
                    }
                    return null;
                });
            } catch (IOException e) {
                if (!server.isClosed()) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return null;
    }

    /** Sends GET /order/1..n with {@code concurrency} virtual client threads; returns one line per request. */
    private static String[] load(HttpClient client, URI base, int n, int concurrency) throws Exception {
        String[] lines = new String[n];
        AtomicInteger next = new AtomicInteger();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < concurrency; c++) {
            clients.add(Thread.ofVirtual().name("load-" + c).start(() -> {
                for (int i; (i = next.getAndIncrement()) < n; ) {
                    String path = "/order/" + (i + 1);
                    HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                            .timeout(Duration.ofSeconds(10)).GET().build();
                    try {
                        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                        lines[i] = "trace_id=" + response.headers().firstValue("X-Trace-Id").orElse("none")
                                + " path=" + path + " status=" + response.statusCode();
                    } catch (IOException e) {
                        lines[i] = "trace_id=none path=" + path + " status=error(" + e + ")";
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }));
        }
        for (Thread t : clients) {
            t.join();
        }
        return lines;
    }
}
