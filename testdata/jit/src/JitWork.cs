// Workload for testdata/jit (Mono and .NET 8 scenarios): compiler-generated closures,
// iterators and async state machines, generic classes and methods, a compiled expression
// tree, on two threads plus thread-pool threads. Usage: JitWork.exe SECONDS.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Linq.Expressions;
using System.Threading;
using System.Threading.Tasks;

namespace JitWork
{
    /// A generic class whose methods are shared by reference types (System.__Canon) and
    /// specialised for value types.
    sealed class Accumulator<T> where T : IComparable<T>
    {
        readonly List<T> items = new List<T>();

        public void Add(T item) { items.Add(item); }

        public T Max()
        {
            T best = items[0];
            foreach (T x in items)
                if (x.CompareTo(best) > 0) best = x;
            return best;
        }

        public int Count { get { return items.Count; } }
    }

    struct Pair<TKey, TValue>
    {
        public TKey Key;
        public TValue Value;
        public Pair(TKey k, TValue v) { Key = k; Value = v; }
    }

    static class Program
    {
        /// An iterator: the compiler makes a state machine class of it.
        static IEnumerable<int> Primes(int limit)
        {
            for (int n = 2; n < limit; n++)
            {
                bool prime = true;
                for (int d = 2; d * d <= n; d++)
                    if (n % d == 0) { prime = false; break; }
                if (prime) yield return n;
            }
        }

        static long Crunch(int n)
        {
            long h = n;
            for (int i = 0; i < 200; i++) h = (h * 31 + i) ^ (h >> 7);
            return h;
        }

        /// A generic method instantiated over int and string.
        static long SumBy<T>(IEnumerable<T> xs, Func<T, long> f)
        {
            long s = 0;
            foreach (T x in xs) s += f(x);
            return s;
        }

        /// An async method: a state machine resumed on thread-pool threads.
        static async Task<long> DoAsync(int rounds)
        {
            long s = 0;
            for (int i = 0; i < rounds; i++)
            {
                await Task.Yield();
                s += Crunch(i) & 0xff;
            }
            return s;
        }

        static long StringWork(int seed)
        {
            var acc = new Accumulator<string>();
            for (int i = 0; i < 50; i++)
                acc.Add((seed * 7919 + i * 104729).ToString("x", CultureInfo.InvariantCulture));
            var pairs = new List<Pair<string, int>>();
            for (int i = 0; i < 20; i++) pairs.Add(new Pair<string, int>(acc.Max(), i));
            return acc.Max().Length + pairs.Sum(p => p.Value);
        }

        static void Worker(object state)
        {
            var until = (DateTime)state;
            int scale = 3;
            // A closure over `scale`: a display class with the lambda as its method.
            Func<int, long> weigh = x => (long)x * scale + Crunch(x & 15);
            var ints = new Accumulator<int>();
            long total = 0;
            while (DateTime.UtcNow < until)
            {
                total += SumBy(Primes(3000), weigh);
                total += SumBy(new[] { "a", "bb", "ccc" }, s => (long)s.Length);
                ints.Add((int)(total & 0xffff));
                total += ints.Max() + StringWork((int)total);
                scale++;
            }
            Console.WriteLine("worker {0}", total & 0xff);
        }

        static int Main(string[] args)
        {
            double seconds = args.Length > 0
                ? double.Parse(args[0], CultureInfo.InvariantCulture) : 1.0;
            var until = DateTime.UtcNow.AddSeconds(seconds);
            // An expression tree compiled to a delegate (lambda_method at run time).
            var p = Expression.Parameter(typeof(int), "i");
            var body = Expression.Add(
                Expression.Multiply(Expression.Convert(p, typeof(long)), Expression.Constant(17L)),
                Expression.Convert(Expression.Modulo(p, Expression.Constant(13)), typeof(long)));
            Func<int, long> tree = Expression.Lambda<Func<int, long>>(body, p).Compile();

            var threads = new Thread[2];
            for (int t = 0; t < threads.Length; t++)
            {
                threads[t] = new Thread(Worker);
                threads[t].Start(until);
            }
            long sum = 0;
            while (DateTime.UtcNow < until)
            {
                sum += DoAsync(40).GetAwaiter().GetResult();
                sum += Enumerable.Range(0, 2000).Select(tree).Where(v => (v & 1) == 0).Sum();
            }
            foreach (var th in threads) th.Join();
            Console.WriteLine("main {0}", sum & 0xff);
            return 0;
        }
    }
}
