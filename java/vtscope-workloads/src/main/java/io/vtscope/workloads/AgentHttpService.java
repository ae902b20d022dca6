// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;

/**
 * The application of the OpenTelemetry Java agent tests: the JDK's {@link HttpServer}, its
 * handlers on virtual threads (a virtual-thread-per-task executor), instrumented only by the
 * agent's own HTTP server instrumentation. This class uses no OpenTelemetry API and no vtscope
 * class, so it runs with nothing but this jar on its class path.
 *
 * <p>Request {@code /req/N} writes {@value #WRITES} times to a sink file, write {@code k} of
 * {@code size(N, k)} bytes (unique over the run), with sleeps between them so the handler unmounts
 * and may come back on another carrier. The ground truth, one JSON line per write, goes to
 * {@code --expected}: the request, the size, and whether the write is inside the manual child
 * span. With {@code --child-span} (needs opentelemetry-api on the class path, which the agent
 * bridges) writes 1 and 2 run inside a span {@code vtscope-child-N} made current in the handler.
 * With {@code --vtscope-otel} (needs vtscope-java.jar, vtscope-otel.jar and the API) the
 * application also installs vtscope-otel's wrapper; the first line of {@code --expected} then
 * names the application's context storage.
 */
public final class AgentHttpService {
    private static final String NAME = "AgentHttpService";
    private static final String USAGE = "--expected PATH --sink PATH [--requests N] [--concurrency C]"
            + " [--child-span] [--vtscope-otel] [--ready-file PATH] [--go-file PATH]";
    static final int WRITES = 4;
    private static final int BASE_SIZE = 30_000;

    static int size(int request, int k) {
        return BASE_SIZE + request * WRITES + k;
    }

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(NAME, USAGE, args, Map.of("expected", "", "sink", "", "requests", "40",
                "concurrency", "8", "ready-file", "", "go-file", ""), Set.of("child-span", "vtscope-otel"));
        int requests = o.getInt("requests", 1, 5000);
        int concurrency = o.getInt("concurrency", 1, 256);
        boolean childSpan = o.flag("child-span");
        Path sinkPath = Path.of(o.required("sink"));
        List<String> expected = new ArrayList<>();
        if (o.flag("vtscope-otel")) {
            expected.add("{\"app_storage\":\"" + WithApi.installVtScopeOtel() + "\"}");
        }

        try (FileOutputStream sink = new FileOutputStream(sinkPath.toFile());
                ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor()) {
            expected.add("{\"sink_fd\":" + fdOf(sinkPath) + "}");
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
            server.setExecutor(handlers);
            server.createContext("/req/", exchange -> handle(exchange, sink, childSpan));
            server.start();
            signalReady(o.get("ready-file"));
            awaitGo(o.get("go-file"));

            int port = server.getAddress().getPort();
            try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
                    HttpClient client = HttpClient.newBuilder().executor(clients).build()) {
                Semaphore inFlight = new Semaphore(concurrency);
                List<Future<Integer>> results = new ArrayList<>();
                for (int i = 0; i < requests; i++) {
                    int n = i;
                    inFlight.acquire();
                    results.add(clients.submit(() -> {
                        try {
                            HttpRequest request = HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + port + "/req/" + n)).build();
                            return client.send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
                        } finally {
                            inFlight.release();
                        }
                    }));
                }
                for (Future<Integer> r : results) {
                    if (r.get() != 200) {
                        throw new IllegalStateException("request failed with status " + r.get());
                    }
                }
            }
            server.stop(0);
        }
        for (int i = 0; i < requests; i++) {
            for (int k = 0; k < WRITES; k++) {
                boolean inChild = childSpan && (k == 1 || k == 2);
                expected.add("{\"request\":" + i + ",\"path\":\"/req/" + i + "\",\"size\":" + size(i, k)
                        + ",\"child\":" + inChild + "}");
            }
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(Path.of(o.required("expected"))))) {
            expected.forEach(out::println);
        }
        System.err.println(NAME + ": " + requests + " requests, " + requests * WRITES + " sink writes");
    }

    private static void handle(HttpExchange exchange, OutputStream sink, boolean childSpan) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            int n = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
            byte[] buffer = new byte[size(n, WRITES - 1)];
            write(sink, buffer, n, 0);
            if (childSpan) {
                WithApi.inChildSpan("vtscope-child-" + n, () -> {
                    write(sink, buffer, n, 1);
                    write(sink, buffer, n, 2);
                });
            } else {
                write(sink, buffer, n, 1);
                write(sink, buffer, n, 2);
            }
            write(sink, buffer, n, 3);
            byte[] body = "ok\n".getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        } catch (RuntimeException e) {
            exchange.sendResponseHeaders(500, -1);
            throw e;
        } finally {
            exchange.close();
        }
    }

    /** One write(2) of size(n, k) bytes, then a sleep: the handler unmounts between writes. */
    private static void write(OutputStream sink, byte[] buffer, int n, int k) {
        try {
            sink.write(buffer, 0, size(n, k));
            Thread.sleep(1 + (n + k) % 3);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The descriptor this process holds on {@code path} (so the test keeps only the sink's writes). */
    private static int fdOf(Path path) throws IOException {
        Path real = path.toRealPath();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).equals(real)) {
                        return Integer.parseInt(fd.getFileName().toString());
                    }
                } catch (IOException e) {
                    // closed meanwhile (e.g. the directory stream's own descriptor)
                }
            }
        }
        throw new IllegalStateException("no descriptor for " + real);
    }

    private static void signalReady(String readyFile) throws IOException {
        if (readyFile != null) {
            Files.writeString(Path.of(readyFile), Long.toString(ProcessHandle.current().pid()));
        }
    }

    private static void awaitGo(String goFile) throws InterruptedException {
        if (goFile == null) {
            return;
        }
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(Path.of(goFile))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no go file " + goFile + " within 120 s");
            }
            Thread.sleep(5);
        }
    }

    /** Everything that touches the OpenTelemetry API or vtscope: loaded only with --child-span or --vtscope-otel. */
    private static final class WithApi {
        static void inChildSpan(String name, Runnable body) {
            io.opentelemetry.api.trace.Span span = io.opentelemetry.api.GlobalOpenTelemetry.getTracer("vtscope-workloads")
                    .spanBuilder(name).startSpan();
            try (io.opentelemetry.context.Scope ignored = span.makeCurrent()) {
                body.run();
            } finally {
                span.end();
            }
        }

        /** Installs vtscope-otel's wrapper as an application would, and names the storage it ends with. */
        static String installVtScopeOtel() {
            io.vtscope.otel.VtScopeOtel.install();
            return io.opentelemetry.context.ContextStorage.get().getClass().getName();
        }
    }
}
