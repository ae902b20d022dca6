// SPDX-License-Identifier: Apache-2.0
package io.vtscope.workloads;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** Minimal "--name value" / "--flag" parser shared by the workloads; bad input exits with status 2. */
final class Options {
    private final String program;
    private final Map<String, String> values;
    private final Map<String, Boolean> flags = new HashMap<>();

    private Options(String program, Map<String, String> values) {
        this.program = program;
        this.values = values;
    }

    /**
     * @param defaults value options and their defaults ("" for none)
     * @param flagNames options without a value
     */
    static Options parse(String program, String usage, String[] args, Map<String, String> defaults,
            Set<String> flagNames) {
        Options o = new Options(program, new LinkedHashMap<>(defaults));
        for (int i = 0; i < args.length; i++) {
            String name = args[i].startsWith("--") ? args[i].substring(2) : null;
            if ("help".equals(name)) {
                System.out.println("usage: " + program + " " + usage);
                System.exit(0);
            } else if (flagNames.contains(name)) {
                o.flags.put(name, true);
            } else if (name != null && defaults.containsKey(name) && i + 1 < args.length) {
                o.values.put(name, args[++i]);
            } else {
                o.fail(name != null && defaults.containsKey(name) ? "missing value for " + args[i]
                        : "unknown option " + args[i]);
            }
        }
        return o;
    }

    /** The value, or null if the option was neither given nor defaulted. */
    String get(String name) {
        String v = values.get(name);
        return v == null || v.isEmpty() ? null : v;
    }

    String required(String name) {
        String v = get(name);
        if (v == null) {
            fail("--" + name + " is required");
        }
        return v;
    }

    int getInt(String name, int min, int max) {
        try {
            int v = Integer.parseInt(values.get(name));
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        fail("--" + name + " must be an integer in [" + min + ", " + max + "]");
        return 0;
    }

    String choice(String name, String... allowed) {
        String v = values.get(name);
        if (!Set.of(allowed).contains(v)) {
            fail("--" + name + " must be one of " + String.join("|", allowed));
        }
        return v;
    }

    boolean flag(String name) {
        return flags.getOrDefault(name, false);
    }

    void fail(String message) {
        System.err.println(program + ": " + message + " (see --help)");
        System.exit(2);
    }
}
