package hook

import "testing"

func TestPathArg(t *testing.T) {
	for name, want := range map[string]bool{
		"path": true, "file_path": true, "filePath": true, "outputFile": true, "output_path": true,
		"destination": true, "paths": true, "notebook_path": true, "content": false, "command": false, "old_string": false,
	} {
		if got := pathArgName(name); got != want {
			t.Errorf("pathArgName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestPathArguments(t *testing.T) {
	got := PathArguments([]byte(`{"file_path":"a","paths":["b","c"],"content":"d","outputFile":"","n":1}`))
	want := map[string]string{"file_path": "a", "paths[0]": "b", "paths[1]": "c"}
	if len(got) != len(want) {
		t.Fatalf("PathArguments = %+v, want %v", got, want)
	}
	for _, p := range got {
		if want[p.Name] != p.Value {
			t.Errorf("%s = %q, want %q", p.Name, p.Value, want[p.Name])
		}
	}
}

func TestPathArgumentsAtAnyDepth(t *testing.T) {
	got := map[string]string{}
	for _, p := range PathArguments([]byte(`{"paths":[1,".env",{"x":2}],"edits":[{"file_path":"a/.git/config","old_string":"x"}],"options":{"output":{"destination":"d"}}}`)) {
		got[p.Name] = p.Value
	}
	want := map[string]string{"paths[1]": ".env", "edits[0].file_path": "a/.git/config", "options.output.destination": "d"}
	if len(got) != len(want) {
		t.Fatalf("PathArguments = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
