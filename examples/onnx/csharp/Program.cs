// A sixtysix ONNX policy in C# with Microsoft.ML.OnnxRuntime (docs/onnx.md).
//
//   python -m sixtysix_env.policy.onnx sixtysix-ppo-v4 -o v4.onnx
//   cd examples/onnx/csharp && dotnet run -- ../../../v4.onnx ../positions.json
//
// Inputs: obs float32 [n, 349] and mask bool [n, 34] (true = legal); outputs: logits
// float32 [n, 34] (-infinity where illegal) and action int64 [n], the policy's move.
using System.Text.Json;
using Microsoft.ML.OnnxRuntime;
using Microsoft.ML.OnnxRuntime.Tensors;

const int ObsSize = 349;
const int NumActions = 34;

if (args.Length != 2)
{
    Console.Error.WriteLine("usage: dotnet run -- MODEL.onnx positions.json");
    return 2;
}

using var session = new InferenceSession(args[0]);
var meta = session.ModelMetadata.CustomMetadataMap;
Console.WriteLine($"policy {meta["sixtysix.name"]}, observation version {meta["sixtysix.obs_version"]}");

using var doc = JsonDocument.Parse(File.ReadAllText(args[1]));
var positions = doc.RootElement.GetProperty("positions").EnumerateArray().ToList();
int n = positions.Count;

// One row per decision. An engine fills obs from its own game state (the layout is
// in docs/onnx.md); here the rows come from positions.json.
var obs = new DenseTensor<float>(new[] { n, ObsSize });
var mask = new DenseTensor<bool>(new[] { n, NumActions });
for (int i = 0; i < n; i++)
{
    int j = 0;
    foreach (var x in positions[i].GetProperty("obs").EnumerateArray()) obs[i, j++] = x.GetSingle();
    j = 0;
    foreach (var x in positions[i].GetProperty("mask").EnumerateArray()) mask[i, j++] = x.GetInt32() != 0;
}

var inputs = new List<NamedOnnxValue>
{
    NamedOnnxValue.CreateFromTensor("obs", obs),
    NamedOnnxValue.CreateFromTensor("mask", mask),
};
using var results = session.Run(inputs);
var logits = results.First(r => r.Name == "logits").AsTensor<float>();
var actions = results.First(r => r.Name == "action").AsTensor<long>();

int same = 0;
for (int i = 0; i < n; i++)
{
    long want = positions[i].GetProperty("action").GetInt64();
    long got = actions[i];
    double worst = 0; // the largest logit difference over the legal moves
    int a = 0;
    foreach (var x in positions[i].GetProperty("logits").EnumerateArray())
    {
        if (x.ValueKind == JsonValueKind.Number)
            worst = Math.Max(worst, Math.Abs(logits[i, a] - x.GetDouble()));
        a++;
    }
    if (got == want) same++;
    string shows = positions[i].GetProperty("shows").GetString() ?? "";
    string name = positions[i].GetProperty("action_name").GetString() ?? "";
    Console.WriteLine($"{shows}: played {got} ({name} expected) {(got == want ? "ok" : "DIFFERENT")}, legal logits within {worst:E1}");
}
Console.WriteLine($"{same} of {n} moves as {doc.RootElement.GetProperty("policy").GetString()} plays them");
return same == n ? 0 : 1;
