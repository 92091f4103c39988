// The truth for Java's built-in edges: javac's own symbol resolution (com.sun.source).
//
// Compiled and run at bench time by bench/bench_java_edges.py (nothing binary is kept):
//   javac -d OUT JavacEdges.java
//   java -cp OUT JavacEdges OUT.tsv CLASSPATH RELEASE ROOT FILE...
// Every source file is parsed and attributed (task.analyze()); then each use site is read
// from the attributed trees:
//   calls       a method invocation, `new` (the constructor; a default constructor is its
//               class), this(...)/super(...) (also the super() javac adds to a constructor
//               that does not begin with one), a method reference (Foo::bar, Foo::new)
//   references  an identifier or member select that names a type (declarations, casts,
//               extends/implements, annotations, static receivers, generics, class literals)
//   overrides   a method overriding (or implementing) another: the overridden -> the method
// between definitions of the sources given, each named as warpline names it
// (docs/languages.md, the `java:` dialect): the innermost named class, method or
// constructor around the site; members of anonymous classes and lambdas belong to the
// definition around them. Imports and package clauses are not uses. Output: one
// `kind<TAB>source<TAB>target<TAB>path:line` per edge site.
import com.sun.source.tree.*;
import com.sun.source.util.*;
import javax.lang.model.element.*;
import javax.lang.model.type.*;
import javax.lang.model.util.*;
import javax.tools.*;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;

public class JavacEdges {
    static Trees trees;
    static Elements elements;
    static Types types;
    static final Map<Element, String> NAMES = new HashMap<>();
    static PrintWriter out;
    static String root;

    public static void main(String[] args) throws Exception {
        out = new PrintWriter(Files.newBufferedWriter(Paths.get(args[0]), StandardCharsets.UTF_8));
        String classpath = args[1];
        String release = args[2];
        root = args[3];
        List<File> files = new ArrayList<>();
        for (int i = 4; i < args.length; i++) files.add(new File(args[i]));
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        StandardJavaFileManager fm = compiler.getStandardFileManager(diags, null, StandardCharsets.ISO_8859_1);
        List<String> options = new ArrayList<>(Arrays.asList("-proc:none", "-nowarn", "-encoding", "ISO-8859-1",
                "--release", release, "-implicit:none"));
        if (!classpath.isEmpty()) { options.add("-cp"); options.add(classpath); }
        JavacTask task = (JavacTask) compiler.getTask(null, fm, diags, options, null, fm.getJavaFileObjectsFromFiles(files));
        trees = Trees.instance(task);
        elements = task.getElements();
        types = task.getTypes();
        Iterable<? extends CompilationUnitTree> units = task.parse();
        task.analyze();
        int errors = 0;
        for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) { errors++; System.err.println(d); }
        }
        System.err.println("javac errors: " + errors);
        for (CompilationUnitTree unit : units) new Scanner(unit).scan(unit, null);
        out.close();
    }

    /** The simple erased name of a parameter's type as written (warpline's rule). */
    static String erased(Tree type) {
        switch (type.getKind()) {
            case PARAMETERIZED_TYPE: return erased(((ParameterizedTypeTree) type).getType());
            case ARRAY_TYPE: return erased(((ArrayTypeTree) type).getType()) + "[]";
            case MEMBER_SELECT: return ((MemberSelectTree) type).getIdentifier().toString();
            case ANNOTATED_TYPE: return erased(((AnnotatedTypeTree) type).getUnderlyingType());
            default: return type.toString().replaceAll("\\s+", "");
        }
    }

    static boolean anonymous(ClassTree cls) {
        return cls.getSimpleName().length() == 0;
    }

    /** warpline's name of the declaration at `path` (a named class or a method of one), or
     *  null when it is not an entity (a member of an anonymous class, a generated one). */
    static String nameOf(TreePath path) {
        List<String> parts = new ArrayList<>();
        String kind = null;
        for (TreePath p = path; p != null; p = p.getParentPath()) {
            Tree t = p.getLeaf();
            if (t instanceof ClassTree) {
                ClassTree c = (ClassTree) t;
                if (anonymous(c)) {
                    if (parts.isEmpty()) return null;  // the anonymous class itself
                    // a member of an anonymous class is not an entity; a local class
                    // declared deeper inside one names itself from the entity around it
                    if (parts.size() == 1 && kind != null && !kind.equals("class")) return null;
                    continue;
                }
                if (kind == null) kind = classKind(c);
                parts.add(c.getSimpleName().toString());
            } else if (t instanceof MethodTree) {
                MethodTree m = (MethodTree) t;
                Tree parent = p.getParentPath().getLeaf();
                if (parent instanceof ClassTree && anonymous((ClassTree) parent)) {
                    if (parts.isEmpty()) return null;
                    continue;
                }
                StringBuilder sb = new StringBuilder();
                boolean ctor = m.getName().contentEquals("<init>");
                sb.append(ctor ? "<init>" : m.getName().toString()).append('(');
                boolean first = true;
                for (VariableTree v : m.getParameters()) {
                    if (!first) sb.append(',');
                    first = false;
                    sb.append(erased(v.getType()));
                }
                sb.append(')');
                if (kind == null) kind = ctor ? "constructor" : "method";
                parts.add(sb.toString());
            } else if (t instanceof CompilationUnitTree) {
                CompilationUnitTree u = (CompilationUnitTree) t;
                String pkg = u.getPackageName() == null ? "(default)" : u.getPackageName().toString();
                Collections.reverse(parts);
                return "java:" + kind + ":" + pkg + "." + String.join(".", parts);
            }
        }
        return null;
    }

    static String classKind(ClassTree c) {
        switch (c.getKind()) {
            case INTERFACE: return "interface";
            case ENUM: return "enum";
            case ANNOTATION_TYPE: return "annotation";
            default: return c.getKind().name().equals("RECORD") ? "record" : "class";
        }
    }

    /** warpline's name of a declared element of the sources, else null (a library's). */
    static String target(Element el) {
        if (el == null) return null;
        if (NAMES.containsKey(el)) return NAMES.get(el);
        String name = null;
        Element decl = el;
        if (el.getKind() == ElementKind.CONSTRUCTOR && elements.getOrigin(el) == Elements.Origin.MANDATED) {
            decl = el.getEnclosingElement();  // a default constructor: its class
        }
        TreePath path = trees.getPath(decl);
        if (path != null) name = nameOf(path);
        NAMES.put(el, name);
        return name;
    }

    static boolean isType(Element el) {
        if (el == null) return false;
        ElementKind k = el.getKind();
        return k.isClass() || k.isInterface();
    }

    static class Scanner extends TreePathScanner<Void, Void> {
        final CompilationUnitTree unit;
        final Deque<String> owners = new ArrayDeque<>();
        final String file;

        Scanner(CompilationUnitTree unit) {
            this.unit = unit;
            String f = unit.getSourceFile().toUri().getPath();
            this.file = f.startsWith(root) ? f.substring(root.length()) : f;
        }

        void emit(String kind, Tree site, String tgt) {
            String src = owners.peek();
            if (src == null || tgt == null || src.equals(tgt)) return;
            long line = unit.getLineMap().getLineNumber(trees.getSourcePositions().getStartPosition(unit, site));
            out.println(kind + "\t" + src + "\t" + tgt + "\t" + file + ":" + line);
        }

        @Override public Void visitImport(ImportTree t, Void v) { return null; }
        @Override public Void visitPackage(PackageTree t, Void v) { return null; }

        @Override public Void visitClass(ClassTree t, Void v) {
            String name = nameOf(getCurrentPath());
            if (name != null) owners.push(name);
            try {
                if (name != null) overrides(t);
                return super.visitClass(t, v);
            } finally { if (name != null) owners.pop(); }
        }

        @Override public Void visitMethod(MethodTree t, Void v) {
            Element el = trees.getElement(getCurrentPath());
            if (el != null && elements.getOrigin(el) == Elements.Origin.MANDATED) return null;
            String name = nameOf(getCurrentPath());
            if (name != null) owners.push(name);
            try { return super.visitMethod(t, v); }
            finally { if (name != null) owners.pop(); }
        }

        void overrides(ClassTree t) {
            Element cls = trees.getElement(getCurrentPath());
            if (!(cls instanceof TypeElement)) return;
            TypeElement type = (TypeElement) cls;
            for (Element member : type.getEnclosedElements()) {
                if (member.getKind() != ElementKind.METHOD) continue;
                String mine = target(member);
                if (mine == null) continue;
                for (TypeMirror sup : allSupertypes(type.asType())) {
                    Element supEl = types.asElement(sup);
                    if (!(supEl instanceof TypeElement)) continue;
                    for (Element other : supEl.getEnclosedElements()) {
                        if (other.getKind() != ElementKind.METHOD
                                || !other.getSimpleName().equals(member.getSimpleName())) continue;
                        if (!elements.overrides((ExecutableElement) member, (ExecutableElement) other, type)) continue;
                        String theirs = target(other);
                        if (theirs != null && !theirs.equals(mine)) {
                            out.println("overrides\t" + theirs + "\t" + mine + "\t" + file + ":0");
                        }
                    }
                }
            }
        }

        Set<TypeMirror> allSupertypes(TypeMirror t) {
            Set<TypeMirror> seen = new LinkedHashSet<>();
            Deque<TypeMirror> todo = new ArrayDeque<>(types.directSupertypes(t));
            while (!todo.isEmpty()) {
                TypeMirror s = todo.pop();
                if (seen.add(s)) todo.addAll(types.directSupertypes(s));
            }
            return seen;
        }

        @Override public Void visitMethodInvocation(MethodInvocationTree t, Void v) {
            emit("calls", t, target(trees.getElement(getCurrentPath())));
            return super.visitMethodInvocation(t, v);
        }

        @Override public Void visitNewClass(NewClassTree t, Void v) {
            Element ctor = trees.getElement(getCurrentPath());
            if (t.getClassBody() != null && ctor != null) {
                ctor = superConstructor((ExecutableElement) ctor, t);
            }
            emit("calls", t, target(ctor));
            return super.visitNewClass(t, v);
        }

        /** An anonymous class's constructor hands its arguments to its superclass's: that
         *  one is what the source calls (an interface's: none). */
        Element superConstructor(ExecutableElement anon, NewClassTree t) {
            Element cls = anon.getEnclosingElement();
            TypeMirror sup = cls instanceof TypeElement ? ((TypeElement) cls).getSuperclass() : null;
            Element supEl = sup == null ? null : types.asElement(sup);
            if (!(supEl instanceof TypeElement) || supEl.getKind().isInterface()) return null;
            List<ExecutableElement> ctors = new ArrayList<>();
            for (Element e : supEl.getEnclosedElements()) {
                if (e.getKind() == ElementKind.CONSTRUCTOR) ctors.add((ExecutableElement) e);
            }
            for (ExecutableElement c : ctors) {
                if (c.getParameters().size() != anon.getParameters().size()) continue;
                boolean same = true;
                for (int i = 0; i < c.getParameters().size(); i++) {
                    if (!types.isSameType(types.erasure(c.getParameters().get(i).asType()),
                            types.erasure(anon.getParameters().get(i).asType()))) same = false;
                }
                if (same) return c;
            }
            return ctors.size() == 1 ? ctors.get(0) : null;
        }

        @Override public Void visitMemberReference(MemberReferenceTree t, Void v) {
            emit("calls", t, target(trees.getElement(getCurrentPath())));
            return super.visitMemberReference(t, v);
        }

        @Override public Void visitIdentifier(IdentifierTree t, Void v) {
            Element el = trees.getElement(getCurrentPath());
            if (isType(el)) emit("references", t, target(el));
            return super.visitIdentifier(t, v);
        }

        @Override public Void visitMemberSelect(MemberSelectTree t, Void v) {
            Element el = trees.getElement(getCurrentPath());
            if (isType(el)) emit("references", t, target(el));
            return super.visitMemberSelect(t, v);
        }
    }
}
