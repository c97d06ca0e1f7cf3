function f = rodd_frame(c, id)
%RODD_FRAME  The latest frame: f.t (s), f.s (N x 1, m), f.position (N x 3, m), f.rotation
%   (N x 3 x 3: f.rotation(i, :, :) is point i's R, its columns the directors d1 d2 d3),
%   f.rho, f.radius (N x 1), f.kappa (N x 3, 1/m), f.nu (N x 3), f.energy (J),
%   f.volume_change. Points run base to tip.
%   A model of several rods has instead f.rods, one struct per rod in the spec's order
%   (f.rods(k).name and its s, position, rotation, ... as above, f.rods(k).base where its base
%   moves, [] elsewhere); f.energy, f.bodies, f.constraints and f.contacts stay the
%   model's.
  f = rotations(rodd_request(c, 'GET', ['/v1/sessions/' id '/frame']));
  if isfield(f, 'rods')
    rods = f.rods;
    if ~iscell(rods)
      rods = num2cell(rods);
    end
    % a struct array even when the rods differ in their fields (a joined rod's moving base):
    % a field one rod lacks is [] there
    all_names = {};
    for k = 1:numel(rods)
      rods{k} = rotations(rods{k});
      all_names = union(all_names, fieldnames(rods{k}));
    end
    for k = 1:numel(rods)
      for j = 1:numel(all_names)
        if ~isfield(rods{k}, all_names{j})
          rods{k}.(all_names{j}) = [];
        end
      end
      fixed(k) = orderfields(rods{k});  %#ok<AGROW>
    end
    f.rods = fixed;
  end
end

function f = rotations(f)
  if isfield(f, 'rotation')
    n = size(f.rotation, 1);
    f.rotation = permute(reshape(f.rotation', 3, 3, n), [3 2 1]);  % rows of 9 are row-major R
  end
end
