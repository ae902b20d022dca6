# SPDX-License-Identifier: Apache-2.0
# vtscope: thin wrapper over CMake (C++ consumer and native library) and Maven (Java side).
#   make          build everything: build/bin/vtscope and build/java/*.jar
#   make test     set up, build, run all tests (C++ unit and integration tests, Java tests)
#   make demo     set up, build, trace the bundled sample service and summarise per trace
#   make demo-profile  the same service under vtscope profile --stacks: report and flame graph
#   make demo-otlp  the same with --otlp into an OpenTelemetry Collector (built from the Go proxy)
#   make harness  the dual-channel correctness experiment over every identity channel
#   make bench    the benchmark matrix (make bench-quick: a short sanity run)
#   make fuzz     every libFuzzer target for FUZZ_SECONDS (default 600) over its seeds (consumer/fuzz)
#   make install  install under PREFIX (default /usr/local; DESTDIR honoured): bin/vtscope,
#                 lib/vtscope/libvtscope.so, share/vtscope/java/*.jar, share/doc/vtscope
#   make package  the Debian package: $(BUILD)/vtscope_<version>_<arch>.deb
JAVA_HOME ?= /usr/lib/jvm/temurin-25-jdk-amd64
export JAVA_HOME
BUILD     ?= build
MVN       := mvn -B -q -f java/pom.xml
# The jar packs, and the Java tests load, the library of this build folder (BUILD=...).
MVN_NATIVE := -Dvtscope.native.dir=$(abspath $(BUILD))/native
CMAKE_BUILD_TYPE ?= RelWithDebInfo
# The JDK 21 runtime the tests also run on (scripts/setup-jdk21.sh caches it here).
JAVA21_HOME ?= $(abspath $(BUILD))/jdk21

.PHONY: all setup jdk21 configure native java install package test test-native test-java test-package fuzz fuzz-build test-fuzz demo demo-otlp collector harness bench bench-quick bench-jdk21 \
        bench-profile async-profiler demo-profile clean

all: native java

setup: $(BUILD)/.setup-done
jdk21: $(JAVA21_HOME)/release
$(JAVA21_HOME)/release: scripts/setup-jdk21.sh | setup
	scripts/setup-jdk21.sh $(JAVA21_HOME)

$(BUILD)/.setup-done: scripts/setup.sh
	scripts/setup.sh
	mkdir -p $(BUILD) && touch $@

configure: setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) \
	      -DVTSCOPE_JAVA_DIR=$(abspath $(BUILD))/java $(CMAKE_ARGS) >/dev/null

native: configure
	cmake --build $(BUILD)

java: native
	$(MVN) $(MVN_NATIVE) package -DskipTests
	mkdir -p $(BUILD)/java/lib
	cp java/vtscope-java/target/vtscope-java.jar java/vtscope-otel/target/vtscope-otel.jar \
	   java/vtscope-workloads/target/vtscope-workloads.jar \
	   java/vtscope-otel-agent-extension/target/vtscope-otel-agent-extension.jar $(BUILD)/java/
	mkdir -p $(BUILD)/java/agent
	cp java/vtscope-otel-agent-extension/target/agent/*.jar $(BUILD)/java/agent/
	rm -f $(BUILD)/java/lib/*.jar
	cp java/vtscope-workloads/target/lib/*.jar $(BUILD)/java/lib/
	rm -f $(BUILD)/java/lib/vtscope-*.jar

test: all test-java test-native test-package test-fuzz

# What cmake/VtscopeInstall.cmake lays out, the jars of $(BUILD)/java included.
PREFIX ?= /usr/local
install: all
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

# CPack's DEB generator (cmake/VtscopePackage.cmake); Depends from dpkg-shlibdeps.
package: all
	cd $(BUILD) && cpack -G DEB

# The package built, unpacked into a scratch root and run from it (in the release tree, not the
# sanitized one of test-native).
test-package: all
	cd $(BUILD) && ctest -L package --output-on-failure

test-java: native jdk21
	mvn -B -f java/pom.xml $(MVN_NATIVE) -Dvtscope.java21.home=$(JAVA21_HOME) test

# The C++ tests run in a second tree built with AddressSanitizer and UndefinedBehaviorSanitizer;
# the integration tests there drive the sanitized vtscope against the jars of $(BUILD)/java.
# -O1, as AddressSanitizer's documentation advises for reasonable speed: at -O0 the sanitized
# vtscope encoded OTLP so slowly that a Collector stopped for 5 s left a backlog the final flush
# could not deliver (OtlpExport.CollectorStoppedFiveSecondsReconciles); asserts stay on (Debug).
SANITIZE_DEBUG_FLAGS := -g -O1
test-native: native java jdk21
	cmake -S . -B $(BUILD)/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVTSCOPE_SANITIZE=ON \
	      -DVTSCOPE_TEST_JAVA21_HOME=$(JAVA21_HOME) \
	      -DCMAKE_C_FLAGS_DEBUG="$(SANITIZE_DEBUG_FLAGS)" -DCMAKE_CXX_FLAGS_DEBUG="$(SANITIZE_DEBUG_FLAGS)" \
	      -DVTSCOPE_JAVA_DIR=$(abspath $(BUILD))/java $(CMAKE_ARGS) >/dev/null
	cmake --build $(BUILD)/asan
	cd $(BUILD)/asan && ctest --output-on-failure

# The libFuzzer targets of the parsers of target-controlled input (consumer/fuzz), built with clang,
# ASan and UBSan in a tree of their own; their scratch corpora and crash inputs stay in $(BUILD).
FUZZ_SECONDS ?= 600
FUZZ_BUILD := $(BUILD)/fuzz
fuzz-build: setup
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	      -DCMAKE_CXX_COMPILER=clang++ -DVTSCOPE_FUZZ=ON -DVTSCOPE_TESTS=OFF $(CMAKE_ARGS) >/dev/null
	cmake --build $(FUZZ_BUILD) --target vtscope_fuzzers

# Each target for FUZZ_SECONDS, two at a time: one summary line each; fails if any found a crash
# (its input in $(BUILD)/fuzz-artifacts).
fuzz: fuzz-build
	scripts/fuzz.sh run $(abspath $(FUZZ_BUILD))/bin $(abspath $(BUILD)) $(FUZZ_SECONDS)

# make test's share: each target over its seeds and regression inputs, then 5,000 executions.
test-fuzz: fuzz-build
	cd $(FUZZ_BUILD) && ctest -L fuzz --output-on-failure

demo: all
	scripts/demo.sh $(BUILD)

# The same service under vtscope profile --stacks at 999 Hz: report and flame graph in $(BUILD)/demo.
demo-profile: all
	scripts/demo.sh $(BUILD) profile

# The OpenTelemetry Collector of the OTLP tests and demo-otlp (Go toolchain, Go module proxy; about
# 5 minutes the first time, then cached in $(BUILD)/collector).
collector:
	scripts/build-collector.sh $(BUILD)

# make demo with --otlp into that Collector; checks its records against vtscope's own lines.
demo-otlp: all collector
	scripts/demo-otlp.sh $(BUILD)

# The paper's Table 6 over every channel (6 runs of 16 x 8 markers per row), then the large
# run: 10,000 threads x 10 markers, concurrent, GC pressure, under G1 and ZGC.
harness: all
	mkdir -p $(BUILD)/harness
	$(BUILD)/bin/vtscope-harness --runs 6 --check --json $(BUILD)/harness/table6.json
	$(BUILD)/bin/vtscope-harness --channels vmstructs,lifecycle,otep-tls --lifetimes concurrent \
	  --scopes leaky-final --threads 10000 --markers 10 --gc-pressure --gcs G1,Z --runs 1 --check \
	  --json $(BUILD)/harness/large.json

# The benchmark matrix (issue 5): workload x configuration, the write storm and native memory,
# then the vtscope profile part (issue 12, see bench-profile); writes $(BUILD)/bench/results.{md,json}
# and figure.{svg,png}. Root (the consumer configurations).
# bench: 4 forks, 3 x 1 s warm-up, 5 x 1 s measurement (about 23 minutes on 2 cores, plus about
# 19 for the profile part, its alternating phases included).
# bench-quick: 1 fork, short iterations (a sanity run of about 2-3 minutes, numbers are noise).
bench: all async-profiler
	$(BUILD)/bin/vtscope-bench --out $(BUILD)/bench

bench-quick: all async-profiler
	$(BUILD)/bin/vtscope-bench --quick --out $(BUILD)/bench-quick

# JDK 21 beside 25 in one run, interleaved: the dormant writer (Transition, Park/Unpark) and the
# attributed syscall's cost over an empty program (write storm); JDK 21's results in
# $(BUILD)/bench-jdk21/jdk-21.
bench-jdk21: all jdk21
	$(BUILD)/bin/vtscope-bench --also-java-home $(JAVA21_HOME) --workloads transition,parkunpark \
	  --configs baseline,writer --storm-modes none,empty-bpf,vtscope,vtscope-stat --no-memory --no-profile \
	  --out $(BUILD)/bench-jdk21

# Only the vtscope profile part (issue 12): its overhead on Transition and the demo service, and
# vtscope beside async-profiler and JFR on CpuBudgets, and the alternating phases in one JVM per
# workload (about 19 minutes on 2 cores; 22 with --profile-rounds 8).
bench-profile: all async-profiler
	$(BUILD)/bin/vtscope-bench --no-matrix --no-storm --no-memory --out $(BUILD)/bench-profile

# async-profiler for the bench's comparison, from Maven Central (its linux-x64 jar carries
# libasyncProfiler.so); kept in $(BUILD), never committed.
ASYNC_PROFILER_VERSION := 4.2
async-profiler: $(BUILD)/async-profiler/libasyncProfiler.so
$(BUILD)/async-profiler/libasyncProfiler.so:
	mvn -B -q dependency:copy -Dartifact=tools.profiler:async-profiler:$(ASYNC_PROFILER_VERSION):jar:linux-x64 \
	    -DoutputDirectory=$(abspath $(BUILD))/async-profiler
	unzip -o -j -q $(BUILD)/async-profiler/async-profiler-$(ASYNC_PROFILER_VERSION)-linux-x64.jar \
	    linux-x64/libasyncProfiler.so -d $(BUILD)/async-profiler

clean:
	rm -rf $(BUILD)
	$(MVN) clean
